import { sumGivenStats } from '../../engine/text/bm25-given-stats.js';
import type { CorpusStats } from '../../engine/text/bm25-score.js';

/** One hit of one shard's answer: its id and score (higher is better). */
export interface ShardHit {
  readonly id: string;
  readonly score: number;
}

/**
 * The global top-k of a fanned-out search from each shard's top-k: exact, since a document lives on one shard and
 * each shard answered its own best k. Ties are broken by id, as a single node's ranking does, so the order does not
 * depend on which shard answered first.
 *
 * @example mergeTopK([[{ id: 'a', score: 0.9 }], [{ id: 'b', score: 0.95 }]], 1); // [{ id: 'b', score: 0.95 }]
 */
export function mergeTopK<T extends ShardHit>(perShard: readonly (readonly T[])[], k: number): T[] {
  return perShard
    .flat()
    .sort((a, b) => (b.score !== a.score ? b.score - a.score : a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .slice(0, k);
}

/**
 * One shard's term statistics for BM25, in the engine's terms (CorpusStats: live public chunks and their tokens) and
 * each query term's document frequency (public chunks holding it).
 */
export interface ShardTermStats extends CorpusStats {
  readonly df: Readonly<Record<string, number>>;
}

/**
 * Collection-wide term statistics from each shard's (Elasticsearch's dfs phase): summed, so BM25's idf and average
 * length, and hence every score, equal those of one node holding every document.
 *
 * @example sumTermStats([{ chunks: 2, tokens: 9, df: { a: 1 } }, { chunks: 1, tokens: 3, df: { a: 1 } }]); // 3, 12, a: 2
 */
export function sumTermStats(perShard: readonly ShardTermStats[]): ShardTermStats {
  return sumGivenStats(perShard);
}
