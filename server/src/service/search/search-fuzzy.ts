import { fuzzySearch } from '../../engine/search/fuzzy-search.js';
import type { UseCaseOf } from '../context.js';
import type { SearchDeps } from './deps.js';
import { clampLimit, geoOf, requireQuery, scopeOf, searchResponse } from './scope.js';

export const searchFuzzyUseCase =
  (deps: SearchDeps): UseCaseOf<'search-fuzzy'> =>
  async ({ body }, ctx) => {
    const started = performance.now();
    const query = requireQuery(body.query);
    const scope = scopeOf(deps, ctx, { table: body.primary_table, geo: geoOf(body) });
    const { hits, notes } = fuzzySearch(
      deps.search,
      scope,
      query,
      body.fuzziness,
      body.prefix_length,
      clampLimit(body.limit),
    );
    return searchResponse(deps.search, hits, body.limit, started, { notes });
  };
