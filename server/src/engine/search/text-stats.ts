import type { GivenStats } from '../text/bm25-score.js';
import { analyseMatch, type QueryAnalysis } from '../text/query-analysis.js';
import { textMatch } from './fts-query.js';
import type { Scope } from './scope.js';
import type { SearchCore } from './search-core.js';

/** A shard's answer to a dfs phase: the statistics of the documents asked, of the whole index, and whether split. */
export interface TextStatsAnswer {
  /** The public chunks of the scope's collection's documents `keep` accepts. */
  readonly kept: GivenStats;
  /** Every public chunk of the tenant's index (what a search here ranks with when given nothing). */
  readonly all: GivenStats;
  /** A document of the index is split into several chunks: given (chunk-level) statistics cannot rank it. */
  readonly split: boolean;
}

const none: GivenStats = { chunks: 0, tokens: 0, df: {} };

/**
 * The BM25 statistics of a text query (match or phrase) over the public documents of the scope's collection whose
 * id `keep` accepts (a partitioned collection's shards held here), and over the tenant's whole index: the first
 * phase of a search of a partitioned collection, whose sums every shard then ranks with (Elasticsearch's
 * dfs_query_then_fetch). Waits for the tenant's in-memory index to load.
 *
 * @example const { kept } = await textStats(core, scope, 'shock wave', 'match', analysis, (id) => mine(id));
 */
export async function textStats(
  core: SearchCore,
  scope: Scope & { table: string },
  query: string,
  type: 'match' | 'phrase',
  analysis: QueryAnalysis,
  keep: (id: string) => boolean,
): Promise<TextStatsAnswer> {
  const tenantId = scope.viewer.tenantId;
  const asked = textMatch(query, type);
  const index = await core.text.loaded(tenantId);
  if (!asked || !index) return { kept: none, all: none, split: false };
  const match = analyseMatch(asked, analysis).match;
  const statsQuery = 'phrase' in match ? { phrase: match.phrase } : 'words' in match ? { words: match.words } : null;
  if (!statsQuery) return { kept: none, all: none, split: index.split };
  const docs = new Set<number>();
  for (const [seq, id] of core.rows.publicIds(tenantId, scope.table)) if (keep(id)) docs.add(seq);
  return {
    kept: index.termStats((doc) => docs.has(doc), statsQuery),
    all: index.termStats(() => true, statsQuery),
    split: index.split,
  };
}
