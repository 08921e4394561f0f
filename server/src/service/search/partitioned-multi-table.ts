import { createError } from '@godb/contract';
import { distinctTables, parseJoins } from '../../engine/search/multi-table-search.js';
import type { SearchAnswer } from '../../engine/search/searches.js';
import { askedLimit, byId, partsOf, type TenantRequest } from './partitioned-request.js';
import { summedStats } from './partitioned-text.js';

type Result = SearchAnswer['results'][number];
type PartAnswer = SearchAnswer & { share: { updated: Record<string, number> } };

/**
 * A multi-table search of a tenant whose listed tables include a partitioned collection (issue #41, decision 0091):
 * with a query, its BM25 statistics summed over every shard first (partitioned-text.ts); then every part (partsOf)
 * answers its best `limit` of the documents it counts, joined to their partners there, and this node merges them
 * in one node's order: best first, ties in table_names' order, newest first, then by id. A join's partners are read
 * where the base document is, so a partitioned collection may be the joins' left table but not a right one (501).
 *
 * @example const answer = await partitionedMultiTable({ partitions, tenantId, table: null, body, principal, allowPartial: false });
 */
export async function partitionedMultiTable(request: TenantRequest, partitioned: readonly string[]): Promise<object> {
  const { body } = request;
  const given = body as { table_names: string[]; join_conditions?: unknown; query?: unknown };
  const tables = distinctTables(given.table_names);
  const joins = parseJoins(given.join_conditions, tables);
  const right = joins.map((j) => j.right_table).find((table) => partitioned.includes(table));
  if (right !== undefined) {
    throw createError('NOT_IMPLEMENTED', {
      operation: `search-multi-table joining to the partitioned collection ${right} (a join's partners are read on the node of its left document; make ${right} the left table)`,
      issue: 41,
    });
  }
  const limit = askedLimit(body);
  const withText = typeof given.query === 'string' && given.query.trim() !== '';
  const first = withText ? await summedStats(request, 'search-multi-table') : undefined;
  const second = await partsOf(request, 'search-multi-table', first ? { stats: first.stats } : {});
  const answers = second.answers as PartAnswer[];
  const order = new Map(tables.map((table, i) => [table, i]));
  const at = (hit: Result) => order.get(hit.table ?? '') ?? tables.length;
  const seen = new Map<string, { hit: Result; updated: number }>();
  for (const answer of answers)
    for (const hit of answer.results)
      if (!seen.has(hit.document_id))
        seen.set(hit.document_id, { hit, updated: answer.share.updated[hit.document_id] ?? 0 });
  const results = [...seen.values()]
    .sort(
      (a, b) =>
        b.hit.score - a.hit.score ||
        at(a.hit) - at(b.hit) ||
        b.updated - a.updated ||
        byId(a.hit.document_id, b.hit.document_id),
    )
    .slice(0, limit)
    .map((x) => x.hit);
  const notes = [...new Set([...(first?.notes ?? []), ...answers.flatMap((a) => a.notes ?? [])])];
  const missing = [...new Set([...(first?.missing ?? []), ...second.missing])].sort((a, b) => a - b);
  return {
    results,
    // Each part counted the documents it counts: their sum is the tenant's.
    total_hits: answers.reduce((sum, a) => sum + a.total_hits, 0),
    time_taken: Math.max(0, ...answers.map((a) => a.time_taken)),
    ...(notes.length > 0 && { notes }),
    ...(missing.length > 0 && { missing_shards: missing }),
  };
}
