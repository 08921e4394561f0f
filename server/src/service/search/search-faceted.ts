import { facetedSearch } from '../../engine/search/faceted-search.js';
import type { UseCaseOf } from '../context.js';
import type { SearchDeps } from './deps.js';
import { geoOf, scopeOf, searchResponse } from './scope.js';

export const searchFacetedUseCase =
  (deps: SearchDeps): UseCaseOf<'search-faceted'> =>
  async ({ body }, ctx) => {
    const started = performance.now();
    const scope = scopeOf(deps, ctx, { table: body.primary_table, geo: geoOf(body) });
    const { hits, facets } = await facetedSearch(deps.search, scope, body.query, body.facets, ctx.signal);
    return { ...searchResponse(deps.search, hits, body.limit, started), facets };
  };
