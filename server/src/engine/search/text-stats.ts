import type { GivenStats } from '../text/bm25-score.js';
import { analyseMatch, type QueryAnalysis } from '../text/query-analysis.js';
import { textMatch, type TextMatch } from './fts-query.js';
import { PartitionedPlaces } from './partitioned-places.js';
import type { CountedDocument, Scope } from './scope.js';
import type { SearchCore } from './search-core.js';

/**
 * What a node counts in the dfs round of a partitioned collection's search: BM25's statistics are the tenant's
 * whole index, as on one node, so every partitioned collection of the tenant is counted once over the cluster.
 */
export interface StatsCounting {
  /** The partitioned collections this node counts, each with the documents of its shards asked of this node. */
  readonly counted?: ReadonlyMap<string, (id: string) => boolean>;
  /** Every partitioned collection of the tenant: the rest of its text is on every node. */
  readonly partitioned: readonly string[];
  /** Names the shards `counted` asks (the same key, the same shards): what the dfs round's sets are kept by. */
  readonly key?: string;
}

/**
 * Which documents a node's part of a search of the whole tenant counts: with `counted` (a fan-out's node), the
 * documents of the shards asked of it; without (the asking node's own part), the tenant's documents in no
 * partitioned collection, which every node holds. Each document is so counted exactly once over the parts.
 */
export function countedBy(counting: StatsCounting): CountedDocument {
  const counted = counting.counted;
  if (counted) return (doc) => counted.get(doc.primary_table)?.(doc.id) ?? false;
  const partitioned = new Set(counting.partitioned);
  return (doc) => !partitioned.has(doc.primary_table);
}

/** A node's answer to the dfs round: its share of the partitioned collections, the rest, and whether split. */
export interface TextStatsAnswer {
  /** The public chunks of the documents `counted` names. */
  readonly kept: GivenStats;
  /** The public chunks of the tenant's documents in no partitioned collection (the same on every node). */
  readonly rest: GivenStats;
  /** A document of the index is split into several chunks: given (chunk-level) statistics cannot rank it. */
  readonly split: boolean;
}

const none: GivenStats = { chunks: 0, tokens: 0, df: {} };

/**
 * The BM25 statistics of a text query (match or phrase) here: over the public documents of the partitioned
 * collections' shards this node is asked to count, and over the tenant's documents in no partitioned collection.
 * The first phase of a search of a partitioned collection, whose sums every shard then ranks with (Elasticsearch's
 * dfs_query_then_fetch). Waits for the tenant's in-memory index to load.
 *
 * @example const { kept } = await textStats(core, scope, 'shock wave', 'match', analysis, counting);
 */
export async function textStats(
  core: SearchCore,
  scope: Scope,
  query: string,
  type: 'match' | 'phrase',
  analysis: QueryAnalysis,
  counting: StatsCounting,
): Promise<TextStatsAnswer> {
  return matchStats(core, scope, textMatch(query, type), analysis, counting);
}

/** textStats of a match already parsed, analysed with `analysis` (null: its words are index terms already). */
export async function matchStats(
  core: SearchCore,
  scope: Scope,
  asked: TextMatch | undefined,
  analysis: QueryAnalysis | null,
  counting: StatsCounting,
): Promise<TextStatsAnswer> {
  const tenantId = scope.viewer.tenantId;
  const index = await core.text.loaded(tenantId);
  if (!asked || !index) return { kept: none, rest: none, split: index?.split ?? false };
  // Without an analysis, the match's words are index terms already.
  const match = analysis ? analyseMatch(asked, analysis).match : asked;
  // A wildcard's groups (its expansions, chosen by the asking node): every term of every group.
  const statsQuery =
    'phrase' in match
      ? { phrase: match.phrase }
      : 'words' in match
        ? { words: match.words }
        : { words: [...new Set(match.groups.flat())] };
  if (!statsQuery) return { kept: none, rest: none, split: index.split };
  const places = PartitionedPlaces.of(core, tenantId, index, counting.partitioned);
  const keep = countedBy(counting);
  const kept =
    counting.counted && counting.counted.size > 0
      ? places.kept(counting.key, ([id, table]) => keep({ id, primary_table: table }))
      : undefined;
  return {
    kept: kept ? index.termStats((seq) => kept.has(seq), statsQuery) : none,
    rest: index.termStats((seq) => !places.has(seq), statsQuery),
    split: index.split,
  };
}
