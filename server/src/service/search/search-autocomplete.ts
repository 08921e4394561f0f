import type { UseCaseOf } from '../context.js';
import type { SearchDeps } from './deps.js';
import { clampLimit, scopeOf } from './scope.js';

export const searchAutocompleteUseCase =
  (deps: SearchDeps): UseCaseOf<'search-autocomplete'> =>
  async ({ body: { prefix, field, fuzziness, limit } }, ctx) => {
    const scope = scopeOf(deps, ctx);
    // Cluster mode, a tenant with partitioned collections (decision 0084): this node's part of one of the rounds.
    const run = ctx.partition;
    if (run?.counting && run.phase === 'stats' && run.words)
      return deps.searches.wordStats(scope, run.words, run.counting) as never;
    if (run?.counting && (run.phase === 'tally' || run.phase === 'expand' || run.phase === 'count')) {
      const round = { phase: run.phase, words: run.words, counting: run.counting };
      return deps.searches.completionShare(scope, { prefix, field, fuzziness }, round) as never;
    }
    return deps.searches.autocomplete(scope, { prefix, field, fuzziness, limit: clampLimit(limit) });
  };
