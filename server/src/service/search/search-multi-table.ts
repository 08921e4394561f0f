import type { UseCaseOf } from '../context.js';
import type { SearchDeps } from './deps.js';
import { clampLimit, scopeOf } from './scope.js';

export const searchMultiTableUseCase =
  (deps: SearchDeps): UseCaseOf<'search-multi-table'> =>
  async ({ body }, ctx) =>
    deps.searches.multiTable(scopeOf(deps, ctx), {
      tables: body.table_names,
      joins: body.join_conditions,
      query: body.query,
      limit: clampLimit(body.limit),
      signal: ctx.signal,
    });
