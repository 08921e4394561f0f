import type { PipelineRequest } from '../../engine/search/pipeline/pipeline-input.js';
import type { UseCaseOf } from '../context.js';
import type { SearchDeps } from './deps.js';
import { scopeOf } from './scope.js';

/** The query pipeline: the caller's scope (access, the collection, the request's filters) applies in every stage. */
export const searchQueryUseCase =
  (deps: SearchDeps): UseCaseOf<'search-query'> =>
  async ({ body }, ctx) => {
    const scope = scopeOf(deps, ctx, { table: body.primary_table, filters: body.filters });
    const answer = await deps.searches.query(scope, { ...(body as PipelineRequest), signal: ctx.signal });
    const { notes, ...rest } = answer;
    return { ...rest, ...(notes.length > 0 && { notes }) };
  };
