/** A candidate MMR may pick: its key, its relevance score, and its vector (absent: similar to nothing). */
export interface MmrCandidate {
  readonly key: number;
  readonly score: number;
  readonly vector?: Float32Array | undefined;
}

/**
 * Maximal marginal relevance (Carbonell & Goldstein, 1998): picks `count` candidates one at a time, each the one
 * maximising λ · relevance − (1 − λ) · its greatest similarity to those already picked, relevance being the score
 * min-max normalised over the candidates (scores of a fusion or a formula are on no fixed scale, similarities are).
 * The first pick is the most relevant; ties go to the better-ranked candidate. O(count × candidates) similarities.
 *
 * @example mmr(candidates, 0.5, 10, cosine) // keys in pick order
 */
export function mmr(
  candidates: readonly MmrCandidate[],
  lambda: number,
  count: number,
  similarity: (a: Float32Array, b: Float32Array) => number,
): number[] {
  if (candidates.length === 0) return [];
  const scores = candidates.map((c) => c.score);
  const min = Math.min(...scores);
  const max = Math.max(...scores);
  const relevance = candidates.map((c) => (max === min ? 1 : (c.score - min) / (max - min)));
  // The greatest similarity of each candidate to the picks so far (updated with each pick: no pair twice).
  const nearest = candidates.map(() => -Infinity);
  const left = new Set(candidates.map((_, i) => i));
  const picks: number[] = [];
  while (picks.length < count && left.size > 0) {
    let best = -1;
    let bestValue = -Infinity;
    for (const i of left) {
      const penalty = picks.length === 0 ? 0 : nearest[i]!;
      const value = lambda * relevance[i]! - (1 - lambda) * penalty;
      if (value > bestValue) {
        bestValue = value;
        best = i;
      }
    }
    left.delete(best);
    picks.push(best);
    const picked = candidates[best]!.vector;
    for (const i of left) {
      const vector = candidates[i]!.vector;
      const sim = picked && vector ? similarity(picked, vector) : 0;
      if (sim > nearest[i]!) nearest[i] = sim;
    }
  }
  return picks.map((i) => candidates[i]!.key);
}
