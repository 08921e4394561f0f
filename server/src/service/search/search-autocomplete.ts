import type { UseCaseOf } from '../context.js';
import type { SearchDeps } from './deps.js';
import { clampLimit, scopeOf } from './scope.js';

export const searchAutocompleteUseCase =
  (deps: SearchDeps): UseCaseOf<'search-autocomplete'> =>
  async ({ body: { prefix, field, fuzziness, limit } }, ctx) =>
    deps.searches.autocomplete(scopeOf(deps, ctx), { prefix, field, fuzziness, limit: clampLimit(limit) });
