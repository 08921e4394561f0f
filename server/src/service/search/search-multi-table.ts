import type { UseCaseOf } from '../context.js';
import type { SearchDeps } from './deps.js';
import { clampLimit, scopeOf } from './scope.js';

export const searchMultiTableUseCase =
  (deps: SearchDeps): UseCaseOf<'search-multi-table'> =>
  async ({ body }, ctx) => {
    const scope = scopeOf(deps, ctx);
    // Cluster mode, a tenant with partitioned collections (partitioned-multi-table.ts): the query's statistics
    // round, then this node's part ranked with the sums.
    const run = ctx.partitionLocal ? ctx.partition : undefined;
    if (run?.phase === 'stats' && run.counting) {
      // Multi-table search analyses its query as English with no stop words or synonyms: its statistics alike.
      const text = { query: body.query ?? '', type: 'match' as const, analysis: 'default' as const };
      return deps.searches.textStats(scope, text, run.counting) as never;
    }
    const q = {
      tables: body.table_names,
      joins: body.join_conditions,
      query: body.query,
      limit: clampLimit(body.limit),
      signal: ctx.signal,
    };
    return deps.searches.multiTable(scope, q, run?.stats);
  };
