import { multiTableSearch, parseJoins } from '../../engine/search/multi-table-search.js';
import type { UseCaseOf } from '../context.js';
import type { SearchDeps } from './deps.js';
import { scopeOf, searchResponse } from './scope.js';

export const searchMultiTableUseCase =
  (deps: SearchDeps): UseCaseOf<'search-multi-table'> =>
  async ({ body }, ctx) => {
    const started = performance.now();
    const joins = parseJoins(body.join_conditions, body.table_names);
    const hits = multiTableSearch(deps.search, scopeOf(deps, ctx), body.table_names, body.query, joins);
    return searchResponse(deps.search, hits, body.limit, started);
  };
