import { recommend } from '../../engine/recommend/recommend.js';
import { createError } from '@godb/contract';
import { principalOf, type UseCaseOf } from '../context.js';
import type { SearchDeps } from '../search/deps.js';
import { geoOf, scopeOf, searchResponse } from '../search/scope.js';
import { vectorTarget } from '../search/vector-target.js';

export const searchRecommendationsUseCase =
  (deps: SearchDeps): UseCaseOf<'search-recommendations'> =>
  async ({ body }, ctx) => {
    const started = performance.now();
    const caller = principalOf(ctx);
    // Another user's engagement says what they read: only a tenant admin may recommend from it.
    if (body.user_id !== undefined && body.user_id !== caller.userId && caller.role === 'user') {
      throw createError(
        'FORBIDDEN',
        { reason: "recommendations from another user's engagement need the admin role" },
        { field: 'body.user_id' },
      );
    }
    const scope = scopeOf(deps, ctx, {
      table: body.primary_table ?? body.dataset_id,
      filters: body.filters,
      geo: geoOf(body),
    });
    const target = vectorTarget(deps.collections, scope.viewer.tenantId, {
      primary_table: body.primary_table ?? body.dataset_id,
      vector_name: body.vector_name,
    });
    const space = target && 'collection' in target ? target : undefined;
    if (body.vector !== undefined && !space) {
      throw createError(
        'VALIDATION_FAILED',
        { detail: 'body.vector needs body.vector_name: one of the collection’s own vectors' },
        { field: 'body.vector_name' },
      );
    }
    if (space && body.vector !== undefined && body.vector.length !== space.settings.dimensions) {
      throw createError(
        'INVALID_VECTOR_FORMAT',
        {
          reason: `body.vector has ${body.vector.length} numbers but vector "${space.name}" of collection ${space.collection} has ${space.settings.dimensions} dimensions`,
        },
        { field: 'body.vector' },
      );
    }
    const hits = recommend(
      deps.search,
      scope,
      {
        documentId: body.document_id,
        userId: body.user_id ?? caller.userId,
        strategy: body.strategy,
        weights: { content: body.content_weight, collaborative: body.collab_weight, graph: body.graph_weight },
        minSimilarity: body.min_similarity,
        graphDepth: body.graph_depth,
        edgeType: body.edge_type,
        limit: body.limit,
        combineLocation: body.combine_location_score,
        space,
        vector: body.vector && Float32Array.from(body.vector),
      },
      deps.graphLimits.maxElements,
    );
    return searchResponse(deps.search, hits, body.limit, started);
  };
