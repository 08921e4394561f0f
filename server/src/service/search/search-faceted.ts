import type { UseCaseOf } from '../context.js';
import type { SearchDeps } from './deps.js';
import { clampLimit, geoOf, scopeOf } from './scope.js';

export const searchFacetedUseCase =
  (deps: SearchDeps): UseCaseOf<'search-faceted'> =>
  async ({ body }, ctx) =>
    deps.searches.faceted(scopeOf(deps, ctx, { table: body.primary_table, filters: body.filters, geo: geoOf(body) }), {
      query: body.query,
      facets: body.facets,
      limit: clampLimit(body.limit),
      signal: ctx.signal,
      explain: body.explain,
    });
