import type { ChunkTable } from './bm25-chunks.js';
import type { Bm25Weights } from './bm25-score.js';
import type { SearchScratch } from './bm25-scratch.js';
import type { TermDictionary } from './bm25-terms.js';

/**
 * The live chunks holding a phrase (local ids ascending), with the phrase's weighted frequency in each — in the
 * search scratch, valid until the next search — and in `scratch.ownFound` its frequency in each chunk's own terms.
 */
export interface PhraseMatch {
  readonly ids: Int32Array;
  readonly weights: Float64Array;
  readonly count: number;
  /** Public chunks among them: the phrase's chunk-level document frequency. */
  readonly publicFound: number;
}

/**
 * Finds the live chunks holding `terms` in this order, in the title or in the content (a phrase never spans the
 * two); undefined when one of its terms is in no live chunk. Its frequency in a chunk is the number of occurrences
 * per column, weighted, as FTS5's `bm25()` counts a phrase. Candidates are the chunks holding the phrase's rarest
 * word; each is checked at that word's occurrences only (its posting records the first and how many there are).
 */
export function matchPhrase(
  terms: readonly string[],
  dictionary: TermDictionary,
  chunks: ChunkTable,
  weights: Bm25Weights,
  scratch: SearchScratch,
): PhraseMatch | undefined {
  const termIds = terms.map((term) => dictionary.find(term));
  if (termIds.some((id) => id === undefined || dictionary.counts(id).df === 0)) return undefined;
  const phrase = termIds as number[];
  let rarest = phrase[0]!;
  for (const id of phrase) if (dictionary.counts(id).df < dictionary.counts(rarest).df) rarest = id;
  const p = dictionary.read(rarest);
  const offset = phrase.indexOf(rarest); // where the rarest word sits in the phrase
  const { termPool: pool, alive, termStart, termCount, titleLengths, fresh: freshAt, isPublic } = chunks;
  const { title: titleWeight, content: contentWeight } = weights;
  // The chunks holding the phrase, ids ascending, and the phrase's weighted frequency in each (then its score):
  // typed scratch space, as a common phrase is in hundreds of thousands of chunks at a million.
  const found = scratch.merged[0];
  found.reserve(p.length);
  const foundIds = found.ids;
  const foundWeights = found.scores;
  scratch.reserveOwnFound(p.length);
  const ownFound = scratch.ownFound;
  let count = 0;
  let publicFound = 0;
  const { ids, firstAt, occurrences, length } = p;
  const size = phrase.length;
  for (let i = 0; i < length; i += 1) {
    const id = ids[i]!;
    if (alive[id] === 0) continue;
    const start = termStart[id]!;
    const end = start + termCount[id]!;
    let weight = 0;
    let own = 0;
    const fresh = start + freshAt[id]!;
    // Each occurrence of the rarest word, from its first, is a place the phrase may sit.
    let left = occurrences[i]!;
    for (let at = start + firstAt[i]!; left > 0 && at < end; at += 1) {
      if (pool[at] !== rarest) continue;
      left -= 1;
      const from = at - offset;
      if (from < start || from + size > end) continue;
      let k = 0;
      while (k < size && pool[from + k] === phrase[k]) k += 1;
      if (k !== size) continue;
      const w = from - start < titleLengths[id]! ? titleWeight : contentWeight;
      weight += w;
      // Its document's own occurrence when it ends past what the chunk repeats of the one before (ChunkTable.fresh).
      if (from + size > fresh) own += w;
    }
    if (weight > 0) {
      foundIds[count] = id;
      foundWeights[count++] = weight;
      publicFound += isPublic[id]!;
      ownFound[count - 1] = own;
    }
  }
  return { ids: foundIds, weights: foundWeights, count, publicFound };
}
