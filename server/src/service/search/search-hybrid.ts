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
    const request = {
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
    };
    // Cluster mode, a partitioned collection's hybrid search (partitioned-hybrid.ts): the text side's statistics
    // round, then each side's documents here, which the asking node fuses.
    const run = ctx.partition;
    if (run?.phase === 'stats' && run.counting) {
      const text = { query: body.query ?? '', type: 'match' as const, lang: body.lang };
      return deps.searches.textStats(scope, text, run.counting) as never;
    }
    if (run?.phase === 'sides') return deps.searches.hybridSides(scope, request, run.stats) as never;
    return deps.searches.hybrid(scope, request);
  };
