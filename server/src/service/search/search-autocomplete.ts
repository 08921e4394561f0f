import type { UseCaseOf } from '../context.js';
import type { SearchDeps } from './deps.js';
import { clampLimit, scopeOf } from './scope.js';

export const searchAutocompleteUseCase =
  (deps: SearchDeps): UseCaseOf<'search-autocomplete'> =>
  async ({ body }, ctx) =>
    deps.searches.autocomplete(scopeOf(deps, ctx), {
      prefix: body.prefix,
      field: body.field,
      fuzziness: body.fuzziness,
      limit: clampLimit(body.limit),
    });
