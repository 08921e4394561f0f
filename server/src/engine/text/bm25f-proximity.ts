import { idf, k1, lengthNorm, termScore, type CorpusStats } from './bm25-score.js';

/** BM25F field weights and a term-proximity boost (decision 0061). Opt-in: default ranking never calls this. */
export interface Bm25fProximityOptions {
  /** Weight of a title occurrence. */
  readonly titleWeight: number;
  /** Weight of a content occurrence. */
  readonly contentWeight: number;
  /** Weight of the proximity part against the BM25F part; 0 turns it off. */
  readonly proximity: number;
  /** Two query words further apart than this many positions add nothing. */
  readonly window: number;
}

/**
 * A document's BM25F score, from its analysed title and content words, for the analysed query words `terms` (distinct), plus a proximity boost: for each pair of
 * query words the document holds, the smaller of their idfs times 1 / d, d their closest distance in positions (the
 * title followed by the content, a window's gap between), saturated as BM25 saturates a frequency. BM25F here is
 * BM25 over a frequency weighted per field and the document's whole length, as our index scores (bm25-score.ts),
 * with the weights given. `df(term)`: the public chunks holding the word; `stats`: the tenant's public statistics.
 */
export function bm25fProximityScore(
  titleTerms: readonly string[],
  contentTerms: readonly string[],
  terms: readonly string[],
  df: (term: string) => number,
  stats: CorpusStats,
  options: Bm25fProximityOptions,
): number {
  const norm = lengthNorm(stats, titleTerms.length + contentTerms.length);
  const positions = new Map<string, number[]>();
  const place = (words: readonly string[], offset: number) =>
    words.forEach((w, i) => positions.get(w)?.push(offset + i));
  for (const t of terms) positions.set(t, []);
  place(titleTerms, 0);
  place(contentTerms, titleTerms.length + options.window + 1);
  const idfs = new Map(terms.map((t) => [t, idf(stats, df(t))]));
  let score = 0;
  for (const t of terms) {
    const inTitle = titleTerms.filter((w) => w === t).length;
    const f = inTitle * options.titleWeight + (positions.get(t)!.length - inTitle) * options.contentWeight;
    if (f > 0) score += termScore(idfs.get(t)!, f, norm);
  }
  if (options.proximity <= 0) return score;
  let near = 0;
  for (let i = 0; i < terms.length; i += 1)
    for (let j = i + 1; j < terms.length; j += 1) {
      const d = closest(positions.get(terms[i]!)!, positions.get(terms[j]!)!);
      if (d <= options.window) near += Math.min(idfs.get(terms[i]!)!, idfs.get(terms[j]!)!) / d;
    }
  return score + options.proximity * ((near * (k1 + 1)) / (near + k1));
}

/** The smallest distance between a position of `a` and one of `b` (both ascending); Infinity when either is empty. */
function closest(a: readonly number[], b: readonly number[]): number {
  let best = Infinity;
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    best = Math.min(best, Math.abs(a[i]! - b[j]!));
    if (a[i]! < b[j]!) i += 1;
    else j += 1;
  }
  return best;
}
