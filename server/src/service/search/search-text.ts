import type { UseCaseOf } from '../context.js';
import type { SearchDeps } from './deps.js';
import { clampLimit, geoOf, requireQuery, scopeOf } from './scope.js';

export const searchTextUseCase =
  (deps: SearchDeps): UseCaseOf<'search-text'> =>
  async ({ body }, ctx) => {
    const query = requireQuery(body.query);
    const scope = scopeOf(deps, ctx, {
      table: body.primary_table,
      filters: body.filters,
      geo: geoOf(body),
      requireGeo: body.require_geo,
    });
    if (body.feedback) await deps.searches.textLoaded(scope);
    return deps.searches.text(scope, {
      query,
      type: body.query_type,
      limit: clampLimit(body.limit),
      lang: body.lang,
      highlight: body.highlight,
      explain: body.explain,
      feedback: body.feedback,
    });
  };

/** GET /api/v1/search: the search box (any word, BM25). */
export const simpleSearchUseCase =
  (deps: SearchDeps): UseCaseOf<'simple-search'> =>
  async ({ query }, ctx) =>
    deps.searches.text(scopeOf(deps, ctx), {
      query: requireQuery(query.query),
      type: 'match',
      limit: clampLimit(query.limit),
    });
