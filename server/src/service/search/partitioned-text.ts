import { createError } from '@godb/contract';
import type { TextStatsAnswer } from '../../engine/search/text-stats.js';
import { sumGivenStats } from '../../engine/text/bm25-given-stats.js';
import type { GivenStats } from '../../engine/text/bm25-score.js';
import { partsOf, type TenantRequest } from './partitioned-request.js';
import { partitionedWildcard } from './partitioned-wildcard.js';

/**
 * A text search of a partitioned collection in two rounds (Elasticsearch's dfs_query_then_fetch, decision 0076):
 * one live replica of each shard of each of the tenant's partitioned collections answers the query's statistics
 * over the shards asked of it (public chunks, their tokens, each term's document frequency); their sum, with the
 * tenant's other text (an embedded node's statistics are the whole tenant's), is passed to every shard, which ranks
 * with it. Every score is
 * then the one a node holding everything computes, and the shards' top-k merge exactly.
 *
 * @example const { answers, missing } = await partitionedText({ partitions, tenantId, table: 'papers', body, principal, allowPartial: false });
 */
export async function partitionedText(
  request: TenantRequest,
): Promise<{ answers: readonly unknown[]; missing: readonly number[]; notes: readonly string[] }> {
  const { table, body } = request;
  const given = body as { query_type?: unknown; feedback?: unknown };
  // RM3 feedback expands from one node's top documents: the shards would expand it differently.
  if (given.feedback) {
    throw createError('NOT_IMPLEMENTED', {
      operation: `search-text with feedback ${table === null ? 'without primary_table on a tenant with partitioned collections' : `on the partitioned collection ${table}`}`,
      issue: 41,
    });
  }
  // A wildcard is expanded over every shard's vocabulary first (partitioned-wildcard.ts).
  if (given.query_type === 'wildcard') return partitionedWildcard(request);
  const first = await summedStats(request, 'search-text');
  const second = await partsOf(request, 'search-text', { stats: first.stats });
  return {
    answers: second.answers,
    missing: [...new Set([...first.missing, ...second.missing])].sort((a, b) => a - b),
    notes: first.notes,
  };
}

/**
 * The dfs round of a search of a partitioned collection whose text is ranked by BM25 (`operationId`: text or
 * hybrid; fuzzy, of its candidate `words`): the query's statistics over every shard of every partitioned collection of the tenant (each counted by
 * one live holder: BM25's statistics are the tenant's whole index, as on one node), summed with those of the
 * tenant's other text, which every node holds.
 * A document split into several chunks answers 501 (chunk-level statistics cannot rank it as a whole).
 */
export async function summedStats(
  request: TenantRequest,
  operationId:
    'search-text' | 'search-hybrid' | 'search-faceted' | 'search-fuzzy' | 'search-autocomplete' | 'search-multi-table',
  words?: readonly string[],
  options: { readonly split?: 'refused' | 'counted'; readonly given?: unknown } = {},
): Promise<{ stats: GivenStats; missing: readonly number[]; notes: readonly string[] }> {
  const { partitions, tenantId, table, body, principal, allowPartial } = request;
  const round = {
    phase: 'stats' as const,
    ...(words && { words }),
    ...(options.given !== undefined && { given: options.given }),
  };
  const [first, here] = await Promise.all([
    partitions.fanOut(tenantId, table, operationId, body, principal, allowPartial, round),
    partitions.runHere(operationId, body, principal, round) as Promise<TextStatsAnswer>,
  ]);
  const shards = first.answers as TextStatsAnswer[];
  // Completions are ordered by public chunks, which sum whatever the chunking; a BM25 ranking is of documents.
  if (options.split !== 'counted' && (here.split || shards.some((answer) => answer.split)))
    throw splitRefused(operationId, table ?? 'of the tenant');
  // Every partitioned collection's shards counted once, and the rest of the tenant's text (on every node) from here.
  const notes = first.uncounted?.length
    ? [
        `the BM25 statistics leave out the shards without a live replica of ${first.uncounted.join(', ')}: scores may differ a little from a cluster with every shard`,
      ]
    : [];
  return { stats: sumGivenStats([...shards.map((answer) => answer.kept), here.rest]), missing: first.missing, notes };
}

/** 501 for a search of a partitioned collection once a document of the tenant is split into several chunks. */
export const splitRefused = (operationId: string, table: string) =>
  createError('NOT_IMPLEMENTED', {
    operation: `${operationId} on the partitioned collection ${table} once a document is split into several chunks`,
    issue: 41,
  });
