import { createError } from '@godb/contract';
import type { TextStatsAnswer } from '../../engine/search/text-stats.js';
import { sumGivenStats } from '../../engine/text/bm25-given-stats.js';
import type { PartitionedSearch } from './partitioned-search.js';

/**
 * A text search of a partitioned collection in two rounds (Elasticsearch's dfs_query_then_fetch, decision 0076):
 * one live replica of each shard answers the query's statistics over the shards asked of it (public chunks, their
 * tokens, each term's document frequency); their sum, with the rest of the tenant's text as this node holds it (an
 * embedded node's statistics are the whole tenant's), is passed to every shard, which ranks with it. Every score is
 * then the one a node holding everything computes, and the shards' top-k merge exactly.
 *
 * @example const { answers, missing } = await partitionedText(partitions, tenant, 'papers', body, principal, false);
 */
export async function partitionedText(
  partitions: PartitionedSearch,
  tenantId: string,
  table: string,
  body: unknown,
  principal: unknown,
  allowPartial: boolean,
): Promise<{ answers: readonly unknown[]; missing: readonly number[] }> {
  const given = body as { query_type?: unknown; feedback?: unknown };
  // A wildcard is expanded against one node's vocabulary, RM3 feedback from one node's top documents: the shards
  // would expand them differently.
  const unlike = given.query_type === 'wildcard' ? 'query_type wildcard' : given.feedback ? 'feedback' : undefined;
  if (unlike) {
    throw createError('NOT_IMPLEMENTED', {
      operation: `search-text with ${unlike} on the partitioned collection ${table}`,
      issue: 41,
    });
  }
  const [first, here] = await Promise.all([
    partitions.fanOut(tenantId, table, 'search-text', body, principal, allowPartial, { phase: 'stats' }),
    partitions.runHere('search-text', body, principal, { phase: 'stats' }) as Promise<TextStatsAnswer>,
  ]);
  const shards = first.answers as TextStatsAnswer[];
  if (here.split || shards.some((answer) => answer.split)) {
    throw createError('NOT_IMPLEMENTED', {
      operation: `search-text on the partitioned collection ${table} once a document is split into several chunks`,
      issue: 41,
    });
  }
  // The tenant's other collections, as this node holds them: its whole index less this collection's part here.
  const stats = sumGivenStats([...shards.map((answer) => answer.kept), here.all], here.kept);
  const second = await partitions.fanOut(tenantId, table, 'search-text', body, principal, allowPartial, { stats });
  return {
    answers: second.answers,
    missing: [...new Set([...first.missing, ...second.missing])].sort((a, b) => a - b),
  };
}
