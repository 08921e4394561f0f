import { textSearch } from '../../engine/search/text-search.js';
import type { UseCaseOf } from '../context.js';
import type { SearchDeps } from './deps.js';
import { clampLimit, geoOf, requireQuery, scopeOf, searchResponse } from './scope.js';

export const searchTextUseCase =
  (deps: SearchDeps): UseCaseOf<'search-text'> =>
  async ({ body }, ctx) => {
    const started = performance.now();
    const query = requireQuery(body.query);
    const scope = scopeOf(deps, ctx, {
      table: body.primary_table,
      filters: body.filters,
      geo: geoOf(body),
      requireGeo: body.require_geo,
    });
    const { hits, notes } = textSearch(deps.search, scope, query, body.query_type, clampLimit(body.limit));
    return searchResponse(deps.search, hits, body.limit, started, { notes });
  };

/** GET /api/v1/search: the search box (any word, BM25). */
export const simpleSearchUseCase =
  (deps: SearchDeps): UseCaseOf<'simple-search'> =>
  async ({ query }, ctx) => {
    const started = performance.now();
    const { hits } = textSearch(
      deps.search,
      scopeOf(deps, ctx),
      requireQuery(query.query),
      'match',
      clampLimit(query.limit),
    );
    return searchResponse(deps.search, hits, query.limit, started);
  };
