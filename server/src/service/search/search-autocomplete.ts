import { autocomplete } from '../../engine/search/autocomplete.js';
import type { UseCaseOf } from '../context.js';
import type { SearchDeps } from './deps.js';
import { clampLimit, scopeOf } from './scope.js';

export const searchAutocompleteUseCase =
  (deps: SearchDeps): UseCaseOf<'search-autocomplete'> =>
  async ({ body }, ctx) => {
    const started = performance.now();
    const suggestions = autocomplete(
      deps.search,
      scopeOf(deps, ctx),
      body.prefix,
      body.field,
      body.fuzziness,
      clampLimit(body.limit),
    );
    return { suggestions, time_taken: Math.round((performance.now() - started) * 1000) / 1000 };
  };
