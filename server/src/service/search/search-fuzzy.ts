import type { UseCaseOf } from '../context.js';
import type { SearchDeps } from './deps.js';
import { clampLimit, geoOf, requireQuery, scopeOf } from './scope.js';

export const searchFuzzyUseCase =
  (deps: SearchDeps): UseCaseOf<'search-fuzzy'> =>
  async ({ body }, ctx) => {
    const query = requireQuery(body.query);
    const scope = scopeOf(deps, ctx, { table: body.primary_table, geo: geoOf(body) });
    const q = { query, fuzziness: body.fuzziness, prefixLength: body.prefix_length, limit: clampLimit(body.limit) };
    // Cluster mode, a partitioned collection's fuzzy search (decision 0083): its candidates, the statistics of the
    // readable ones, then the ranking of the expansions the asking node chose.
    const run = ctx.partition;
    if (run?.phase === 'expand') return deps.searches.fuzzyExpansions(scope, q) as never;
    if (run?.phase === 'stats' && run.counting && run.words)
      return deps.searches.wordStats(scope, run.words, run.counting) as never;
    if (run?.stats && run.words)
      return deps.searches.fuzzyRanked(scope, { ...q, words: run.words, notes: run.notes ?? [] }, run.stats);
    return deps.searches.fuzzy(scope, q);
  };
