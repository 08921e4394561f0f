import { sharedValuesAtMost, sortedCounts, valuesShown } from '../../engine/search/faceted-search.js';
import type { FacetShareAnswer, SearchAnswer } from '../../engine/search/searches.js';
import { askedLimit, byId, byScoreThenId, partsOf, type TenantRequest } from './partitioned-request.js';
import { summedStats } from './partitioned-text.js';

type Counts = Record<string, { value: string; count: number }[]>;
type ShareAnswer = SearchAnswer & { facets: Counts; share: FacetShareAnswer };

/**
 * A faceted search of a partitioned collection, or of the whole tenant holding some (issue #41): with a query, its BM25 statistics summed over the
 * shards first (partitioned-text.ts); then every shard's share — its best `limit` matches and its facet counts over
 * the matching documents of the shards asked of it, so each document is counted once — which this node merges:
 * counts summed (then the 50 most frequent, as one node lists), `total_hits` summed, results by score (with a query)
 * or newest first (without; ties by id, where one node breaks them by its own write order).
 *
 * @example const answer = await partitionedFaceted({ partitions, tenantId, table: 'papers', body, principal, allowPartial: false });
 */
export async function partitionedFaceted(request: TenantRequest): Promise<object> {
  const { body } = request;
  const given = body as { query?: unknown };
  const limit = askedLimit(body);
  const withText = typeof given.query === 'string' && given.query.trim() !== '';
  const first = withText ? await summedStats(request, 'search-faceted') : undefined;
  // Of the whole tenant (table null): every partitioned collection's shards, and this node's part for the rest.
  const second = await partsOf(request, 'search-faceted', first ? { stats: first.stats } : {});
  const answers = second.answers as ShareAnswer[];
  const seen = new Map<string, { hit: SearchAnswer['results'][number]; updated: number }>();
  for (const answer of answers)
    for (const hit of answer.results)
      if (!seen.has(hit.document_id))
        seen.set(hit.document_id, { hit, updated: answer.share.updated[hit.document_id] ?? 0 });
  const results = [...seen.values()]
    .sort((a, b) =>
      withText ? byScoreThenId(a.hit, b.hit) : b.updated - a.updated || byId(a.hit.document_id, b.hit.document_id),
    )
    .slice(0, limit)
    .map((x) => x.hit);
  const facets: Counts = {};
  for (const answer of answers)
    for (const [facet, counts] of Object.entries(answer.facets)) {
      const summed = new Map((facets[facet] ?? []).map((c) => [c.value, c.count]));
      for (const c of counts) summed.set(c.value, (summed.get(c.value) ?? 0) + c.count);
      facets[facet] = [...summed].map(([value, count]) => ({ value, count }));
    }
  for (const [facet, counts] of Object.entries(facets)) facets[facet] = sortedCounts(counts).slice(0, valuesShown);
  const notes = [
    ...(first?.notes ?? []),
    ...(answers.some((a) => a.share.truncated)
      ? [
          `a facet has more than ${sharedValuesAtMost} values on a shard: its counts are the sums of each shard's ${sharedValuesAtMost} most frequent`,
        ]
      : []),
  ];
  const missing = [...new Set([...(first?.missing ?? []), ...second.missing])].sort((a, b) => a - b);
  const firstAnswer = answers[0];
  return {
    results,
    total_hits: answers.reduce((sum, a) => sum + a.share.hits, 0),
    time_taken: Math.max(0, ...answers.map((a) => a.time_taken)),
    facets,
    ...(notes.length > 0 && { notes }),
    ...(firstAnswer?.plan && { plan: firstAnswer.plan }),
    ...(missing.length > 0 && { missing_shards: missing }),
  };
}
