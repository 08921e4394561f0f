import { createError } from '@godb/contract';
import { hybridSearch } from '../../engine/search/hybrid-search.js';
import { rankingModelName } from '../../engine/search/ltr.js';
import type { UseCaseOf } from '../context.js';
import type { SearchDeps } from './deps.js';
import { clampLimit, geoOf, scopeOf, searchResponse } from './scope.js';
import { vectorTarget } from './vector-target.js';

export const searchHybridUseCase =
  (deps: SearchDeps): UseCaseOf<'search-hybrid'> =>
  async ({ body }, ctx) => {
    const started = performance.now();
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
    const target = vectorTarget(deps.collections, scope.viewer.tenantId, body);
    const { hits, notes, ranking } = await hybridSearch(deps.search, deps.embedder, scope, {
      text: body.query,
      vector: body.vector,
      ...(target && ('collection' in target ? { space: target } : { model: target.model })),
      alpha: body.alpha,
      limit: clampLimit(body.limit),
      fusion: body.fusion,
      useMlRanking: body.use_ml_ranking,
      signal: ctx.signal,
    });
    return searchResponse(deps.search, hits, body.limit, started, { notes, ranking });
  };
