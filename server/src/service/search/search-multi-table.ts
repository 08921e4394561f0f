import { distinctTables, multiTableSearch, parseJoins } from '../../engine/search/multi-table-search.js';
import type { UseCaseOf } from '../context.js';
import type { SearchDeps } from './deps.js';
import { scopeOf, searchResponse } from './scope.js';

export const searchMultiTableUseCase =
  (deps: SearchDeps): UseCaseOf<'search-multi-table'> =>
  async ({ body }, ctx) => {
    const started = performance.now();
    const tables = distinctTables(body.table_names);
    const joins = parseJoins(body.join_conditions, tables);
    const hits = await multiTableSearch(deps.search, scopeOf(deps, ctx), tables, body.query, joins, ctx.signal);
    return searchResponse(deps.search, hits, body.limit, started);
  };
