import type { UseCaseOf } from '../context.js';
import type { SearchDeps } from './deps.js';
import { clampLimit, geoOf, requireQuery, scopeOf } from './scope.js';

export const searchFuzzyUseCase =
  (deps: SearchDeps): UseCaseOf<'search-fuzzy'> =>
  async ({ body }, ctx) => {
    const query = requireQuery(body.query);
    return deps.searches.fuzzy(scopeOf(deps, ctx, { table: body.primary_table, geo: geoOf(body) }), {
      query,
      fuzziness: body.fuzziness,
      prefixLength: body.prefix_length,
      limit: clampLimit(body.limit),
    });
  };
