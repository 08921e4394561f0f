import { createError } from '@godb/contract';
import { rankingModelName } from '../../engine/search/ltr.js';
import type { UseCaseOf } from '../context.js';
import type { SearchDeps } from './deps.js';
import { clampLimit, geoOf, scopeOf } from './scope.js';

export const searchHybridUseCase =
  (deps: SearchDeps): UseCaseOf<'search-hybrid'> =>
  async ({ body }, ctx) => {
    if (
      body.use_ml_ranking &&
      body.model_name !== undefined &&
      body.model_name !== '' &&
      body.model_name !== rankingModelName
    ) {
      throw createError(
        'VALIDATION_FAILED',
        { detail: `body.model_name must be ${rankingModelName}, the ranking model GoDB trains` },
        { field: 'body.model_name' },
      );
    }
    const scope = scopeOf(deps, ctx, { table: body.primary_table, filters: body.filters, geo: geoOf(body) });
    return deps.searches.hybrid(scope, {
      query: body.query,
      vector: body.vector,
      vectorName: body.vector_name,
      alpha: body.alpha,
      limit: clampLimit(body.limit),
      fusion: body.fusion,
      useMlRanking: body.use_ml_ranking,
      signal: ctx.signal,
      lang: body.lang,
      highlight: body.highlight,
      explain: body.explain,
    });
  };
