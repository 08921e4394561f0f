import { similarity, type SimilarityMethod } from '../search/vector-query.js';

/**
 * Late-interaction score (ColBERT's MaxSim): Σ over the query's vectors of the greatest similarity to any of the
 * document's vectors. Vectors are as compared (unit length for cosine); an empty document scores -Infinity.
 */
export function maxSim(
  method: SimilarityMethod,
  query: readonly Float32Array[],
  document: readonly Float32Array[],
): number {
  if (document.length === 0) return -Infinity;
  let total = 0;
  for (const q of query) {
    let best = -Infinity;
    for (const d of document) {
      const s = similarity(method, q, d);
      if (s > best) best = s;
    }
    total += best;
  }
  return total;
}
