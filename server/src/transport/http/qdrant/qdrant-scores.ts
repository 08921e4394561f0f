/**
 * GoDB's scores as Qdrant answers them, `score_threshold` applied: cosine and dot as they are; a Euclid vector's
 * score, which GoDB answers as 1 / (1 + distance), turned back into the distance, which the threshold bounds from
 * above (smaller is nearer). The one place both the plain search and the query pipeline convert them.
 *
 * @example qdrantScores([{ score: 0.5 }], true, 2) // [{ score: 1 }]
 */
export function qdrantScores<T extends { readonly score: number }>(
  hits: readonly T[],
  euclid: boolean,
  threshold?: number,
): T[] {
  const scored = euclid ? hits.map((h) => ({ ...h, score: 1 / h.score - 1 })) : [...hits];
  if (threshold === undefined) return scored;
  return scored.filter((h) => (euclid ? h.score <= threshold : h.score >= threshold));
}
