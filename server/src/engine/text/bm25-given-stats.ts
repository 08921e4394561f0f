import type { ChunkTable } from './bm25-chunks.js';
import { matchPhrase } from './bm25-phrase.js';
import { givenDf, type Bm25Weights, type GivenStats } from './bm25-score.js';
import type { SearchScratch } from './bm25-scratch.js';
import type { TermDictionary } from './bm25-terms.js';

/** The words of a match query, or one phrase, whose statistics a dfs phase gathers (see termStatsOver). */
export type StatsQuery = { readonly words: readonly string[] } | { readonly phrase: readonly string[] };

/**
 * The BM25 statistics of the live public chunks of the documents `keep` accepts (by document seq): their number,
 * their tokens, and how many of them hold each query word (or the phrase, keyed by its terms joined by a space).
 * A partitioned collection's shard answers these, and the shards' sums rank every shard alike (GivenStats).
 *
 * @example termStatsOver(terms, chunks, weights, scratch, (doc) => mine.has(doc), { words: ['shock'] });
 */
export function termStatsOver(
  dictionary: TermDictionary,
  chunks: ChunkTable,
  weights: Bm25Weights,
  scratch: SearchScratch,
  keep: (docSeq: number) => boolean,
  query: StatsQuery,
): GivenStats {
  const { alive, isPublic, docSeqs, lengths } = chunks;
  const counted = (id: number) => alive[id] === 1 && isPublic[id] === 1 && keep(docSeqs[id]!);
  let total = 0;
  let tokens = 0;
  for (let id = 0; id < chunks.count; id += 1) {
    if (!counted(id)) continue;
    total += 1;
    tokens += lengths[id]!;
  }
  const df: Record<string, number> = Object.create(null) as Record<string, number>;
  if ('phrase' in query) {
    const match = matchPhrase(query.phrase, dictionary, chunks, weights, scratch);
    let n = 0;
    for (let i = 0; i < (match?.count ?? 0); i += 1) if (counted(match!.ids[i]!)) n += 1;
    df[query.phrase.join(' ')] = n;
  } else {
    for (const word of new Set(query.words)) {
      const p = dictionary.live(word)?.p;
      let n = 0;
      for (let i = 0; i < (p?.length ?? 0); i += 1) if (counted(p!.ids[i]!)) n += 1;
      df[word] = n;
    }
  }
  return { chunks: total, tokens, df };
}

/**
 * Statistics summed over `parts` (the shards' answers), less `minus` when given: since every count is a sum over
 * chunks, the sum equals the statistics of one index holding every part's chunks.
 *
 * @example sumGivenStats([{ chunks: 2, tokens: 9, df: { a: 1 } }, { chunks: 1, tokens: 3, df: { a: 1 } }]); // 3, 12, a: 2
 */
export function sumGivenStats(parts: readonly GivenStats[], minus?: GivenStats): GivenStats {
  const df: Record<string, number> = Object.create(null) as Record<string, number>;
  let chunks = 0;
  let tokens = 0;
  const add = (stats: GivenStats, sign: number) => {
    chunks += sign * stats.chunks;
    tokens += sign * stats.tokens;
    for (const [term, n] of Object.entries(stats.df)) df[term] = givenDf({ df }, term) + sign * n;
  };
  for (const stats of parts) add(stats, 1);
  if (minus) add(minus, -1);
  return { chunks, tokens, df };
}
