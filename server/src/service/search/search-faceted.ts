import type { UseCaseOf } from '../context.js';
import type { SearchDeps } from './deps.js';
import { clampLimit, geoOf, scopeOf } from './scope.js';

export const searchFacetedUseCase =
  (deps: SearchDeps): UseCaseOf<'search-faceted'> =>
  async ({ body }, ctx) => {
    const scope = scopeOf(deps, ctx, { table: body.primary_table, filters: body.filters, geo: geoOf(body) });
    // Cluster mode, a partitioned collection's faceted search (partitioned-faceted.ts): the query's statistics
    // round, then this node's share, its facets counted over the shards asked of it.
    const run = ctx.partition;
    if (run?.phase === 'stats' && run.counting) {
      // Faceted search analyses its query as English with no stop words or synonyms: its statistics alike.
      const text = { query: body.query ?? '', type: 'match' as const, analysis: 'default' as const };
      return deps.searches.textStats(scope, text, run.counting) as never;
    }
    const q = {
      query: body.query,
      facets: body.facets,
      limit: clampLimit(body.limit),
      signal: ctx.signal,
      explain: body.explain,
    };
    return deps.searches.faceted(scope, q, run && { keep: run.keep, stats: run.stats });
  };
