import { createError } from '@godb/contract';
import { principalOf, type UseCaseOf } from '../context.js';
import type { SearchDeps } from '../search/deps.js';
import { clampLimit, geoOf, scopeOf } from '../search/scope.js';

export const searchRecommendationsUseCase =
  (deps: SearchDeps): UseCaseOf<'search-recommendations'> =>
  async ({ body }, ctx) => {
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
    return deps.searches.recommendations(
      scope,
      {
        documentId: body.document_id,
        userId: body.user_id ?? caller.userId,
        strategy: body.strategy,
        weights: { content: body.content_weight, collaborative: body.collab_weight, graph: body.graph_weight },
        minSimilarity: body.min_similarity,
        graphDepth: body.graph_depth,
        edgeType: body.edge_type,
        limit: clampLimit(body.limit),
        combineLocation: body.combine_location_score,
        vectorName: body.vector_name,
        vector: body.vector,
      },
      deps.graphLimits.maxElements,
    );
  };
