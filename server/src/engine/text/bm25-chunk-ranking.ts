import type { ChunkTable } from './bm25-chunks.js';
import type { PhraseMatch } from './bm25-phrase.js';
import { gallop, type Postings } from './bm25-postings.js';
import type { RankedChunk } from './bm25-ranked-chunk.js';
import { givenDf, idf, lengthNorm, termScore, type CorpusStats, type GivenStats } from './bm25-score.js';
import type { Found, SearchScratch } from './bm25-scratch.js';
import type { TermDictionary } from './bm25-terms.js';
import { kthLargest, topByPosition } from './bm25-top-k.js';

/** Document seqs a search may return (a filter's allowed set): a chunk of any other is passed over unscored. */
export type Allowed = ReadonlySet<number>;

/** A query term's postings with its weight (idf × times repeated) and the bound of its part of a chunk's score. */
interface ScoredList {
  readonly p: Postings;
  readonly idf: number;
  readonly bound: number;
}

/**
 * Ranks chunks as documents of their own (Bm25Index, while no document is split into several chunks): BM25 over
 * each chunk with the statistics of the live public chunks. Queries of any of several words are scored term at a
 * time, rarest term first, each term's postings merged into the chunks found so far (ids ascending, so memory is
 * read in order), then the best `depth` chunks are kept with a bounded heap. MaxScore pruning: once the chunks found
 * so far fill `depth` and the remaining terms' score bounds together cannot reach the `depth`-th best score, a chunk
 * matching only those terms cannot enter the result, and neither can a chunk found so far whose score plus those
 * bounds stays below it: the remaining postings — the longest — are only searched for the others.
 */
export class ChunkRanking {
  readonly #terms: TermDictionary;
  readonly #chunks: ChunkTable;
  readonly #scratch: SearchScratch;

  constructor(terms: TermDictionary, chunks: ChunkTable, scratch: SearchScratch) {
    this.#terms = terms;
    this.#chunks = chunks;
    this.#scratch = scratch;
  }

  /**
   * The best `depth` chunks containing any of the query's terms (`times`: each with how many times the query
   * repeats it, its weight multiplied), best first; `given`: scored with those statistics rather than the index's.
   */
  search(times: ReadonlyMap<string, number>, depth: number, allowed?: Allowed, given?: GivenStats): RankedChunk[] {
    const stats: CorpusStats = given ?? this.#chunks.stats;
    const lists: ScoredList[] = this.#terms.rarestFirst(times).map(({ p, n, term }) => {
      const weight = n * idf(stats, given ? givenDf(given, term) : p.publicDf);
      return { p, idf: weight, bound: termScore(weight, p.maxFreq, lengthNorm(stats, p.minLength)) };
    });
    let remainingBound = lists.reduce((sum, l) => sum + l.bound, 0);
    // The chunks found so far, ids ascending, with their partial scores: each list is merged in (postings are in
    // id order), so memory is read in order rather than a score per chunk id at random.
    const merged = this.#scratch.merged;
    let found = merged[0];
    let count = 0;
    for (let l = 0; l < lists.length; l += 1) {
      if (count >= depth) {
        const kth = kthLargest(this.#scratch.copyScores(found.scores, count), count, depth);
        if (remainingBound < kth)
          return this.#probeRest(lists.slice(l), remainingBound, kth, found, count, depth, stats);
      }
      const { p, idf: weight, bound } = lists[l]!;
      remainingBound -= bound;
      const into = merged[found === merged[0] ? 1 : 0];
      count = this.#mergeList(found, count, p, weight, into, stats, allowed);
      found = into;
    }
    return this.#bestOf(found.ids, found.scores, count, depth);
  }

  /**
   * Merges postings `p` (its score `weight` × the saturated frequency) into the `count` chunks of `from` (ids
   * ascending, partial scores), into `into`; answers how many chunks `into` holds. Dead chunks are skipped, and so
   * are those of documents `allowed` leaves out (MaxScore's bound then holds among the allowed alone).
   */
  #mergeList(
    from: Found,
    count: number,
    p: Postings,
    weight: number,
    into: Found,
    stats: CorpusStats,
    allowed?: Allowed,
  ): number {
    const { alive, lengths, docSeqs } = this.#chunks;
    const { ids, freqs, length } = p;
    into.reserve(count + length);
    const outIds = into.ids;
    const outScores = into.scores;
    const inIds = from.ids;
    const inScores = from.scores;
    let a = 0;
    let out = 0;
    for (let i = 0; i < length; i += 1) {
      const id = ids[i]!;
      while (a < count && inIds[a]! < id) {
        outIds[out] = inIds[a]!;
        outScores[out++] = inScores[a++]!;
      }
      if (alive[id] === 0 || (allowed && !allowed.has(docSeqs[id]!))) continue;
      const before = a < count && inIds[a] === id ? inScores[a++]! : 0;
      outIds[out] = id;
      outScores[out++] = before + termScore(weight, freqs[i]!, lengthNorm(stats, lengths[id]!));
    }
    while (a < count) {
      outIds[out] = inIds[a]!;
      outScores[out++] = inScores[a++]!;
    }
    return out;
  }

  /**
   * The end of a search once the terms left (`rest`, whose bounds sum to `restBound`) cannot bring a chunk that
   * holds none of the terms read so far into the result (MaxScore): the `depth`-th best partial score `kth` can only
   * rise, so a chunk found so far whose partial score plus `restBound` stays below it cannot enter either. Only the
   * others are looked up in the rest's postings — usually the longest (a common word's, at a million chunks,
   * hundreds of thousands): a galloping search from the last position, ids ascending on both sides. Scores are
   * summed in the same order as a full read, so they are the same to the bit.
   */
  #probeRest(
    rest: readonly ScoredList[],
    restBound: number,
    kth: number,
    found: Found,
    count: number,
    depth: number,
    stats: CorpusStats,
  ): RankedChunk[] {
    const { lengths } = this.#chunks;
    const { ids: foundIds, scores: foundScores } = found;
    let kept = 0;
    for (let i = 0; i < count; i += 1) {
      if (foundScores[i]! + restBound < kth) continue;
      foundIds[kept] = foundIds[i]!;
      foundScores[kept++] = foundScores[i]!;
    }
    for (const { p, idf: weight } of rest) {
      const { ids, freqs, length } = p;
      let at = 0;
      for (let c = 0; c < kept; c += 1) {
        const id = foundIds[c]!;
        at = gallop(ids, length, at, id);
        if (at === length) break;
        if (ids[at] === id)
          foundScores[c] = foundScores[c]! + termScore(weight, freqs[at]!, lengthNorm(stats, lengths[id]!));
      }
    }
    return this.#bestOf(foundIds, foundScores, kept, depth);
  }

  /**
   * The best `depth` chunks holding at least one term of every group (a wildcard query: each pattern's expansions
   * form a group, a plain word a group of one), scored over every term of every group as FTS5 scores the
   * expression `(a OR b) AND c`; `given`: with those statistics (a partitioned collection's, summed over its shards).
   */
  groups(groups: readonly (readonly string[])[], depth: number, allowed?: Allowed, given?: GivenStats): RankedChunk[] {
    const { alive, lengths, docSeqs } = this.#chunks;
    const stats: CorpusStats = given ?? this.#chunks.stats;
    const scratch = this.#scratch;
    scratch.reserveGroups(this.#chunks.count, this.#chunks.capacity);
    const seen = scratch.groupSeen;
    const matched = scratch.groupsMatched;
    const scores = scratch.scores;
    const touched: number[] = [];
    groups.forEach((group, g) => {
      for (const term of group) {
        const p = this.#terms.live(term)?.p;
        if (!p) continue;
        const weight = idf(stats, given ? givenDf(given, term) : p.publicDf);
        const { ids, freqs, length } = p;
        for (let i = 0; i < length; i += 1) {
          const id = ids[i]!;
          if (alive[id] === 0 || (allowed && !allowed.has(docSeqs[id]!))) continue;
          if (seen[id] === -1) touched.push(id);
          if (seen[id] !== g) {
            seen[id] = g;
            matched[id] = matched[id]! + 1;
          }
          scores[id] = scores[id]! + termScore(weight, freqs[i]!, lengthNorm(stats, lengths[id]!));
        }
      }
    });
    const all = groups.length;
    const found = touched.filter((id) => matched[id] === all);
    for (const id of touched) {
      seen[id] = -1;
      matched[id] = 0;
    }
    const chunks = this.#best(found, depth);
    for (const id of touched) scores[id] = 0;
    return chunks;
  }

  /**
   * The best `depth` chunks holding a phrase (matchPhrase), ranked as FTS5's `bm25()` ranks a phrase; only chunks
   * of `allowed` documents kept (the phrase's idf is still that of every public chunk holding it); `given`: its
   * statistics and the phrase's document frequency rather than the index's.
   */
  phrase(
    match: PhraseMatch,
    depth: number,
    allowed?: Allowed,
    given?: { stats: CorpusStats; df: number },
  ): RankedChunk[] {
    const { lengths, docSeqs } = this.#chunks;
    const stats = given?.stats ?? this.#chunks.stats;
    const { ids, weights: scores } = match;
    const weight = idf(stats, given?.df ?? match.publicFound);
    let count = 0;
    for (let i = 0; i < match.count; i += 1) {
      const id = ids[i]!;
      if (allowed && !allowed.has(docSeqs[id]!)) continue;
      ids[count] = id;
      scores[count++] = termScore(weight, scores[i]!, lengthNorm(stats, lengths[id]!));
    }
    return this.#bestOf(ids, scores, count, depth);
  }

  /** The best `depth` of `ids` by their accumulated scores, as results; clears the scores of `ids`. */
  #best(ids: readonly number[], depth: number): RankedChunk[] {
    const scores = this.#scratch.scores;
    const found = this.#scratch.merged[0];
    found.reserve(ids.length);
    ids.forEach((id, i) => {
      found.ids[i] = id;
      found.scores[i] = scores[id]!;
      scores[id] = 0;
    });
    return this.#bestOf(found.ids, found.scores, ids.length, depth);
  }

  /** The best `depth` of `count` chunks (ids and their scores, side by side), as results, best first. */
  #bestOf(ids: Int32Array, scores: Float64Array, count: number, depth: number): RankedChunk[] {
    const { chunkSeqs, docSeqs } = this.#chunks;
    const best = topByPosition(scores, count, depth, ids);
    return best.map((i) => ({ chunk: chunkSeqs[ids[i]!]!, doc: docSeqs[ids[i]!]!, score: scores[i]! }));
  }
}
