import { createError } from '@godb/contract';
import { principalOf, type UseCaseOf } from '../context.js';
import type { SearchDeps } from '../search/deps.js';
import {
  partitionedRecommendations,
  planFromWire,
  shareToWire,
  type RecommendGiven,
} from '../search/partitioned-recommendations.js';
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
    const q = {
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
    };
    // Cluster mode, a tenant holding partitioned collections: this node's rounds of the asking node's fan-out.
    const part = ctx.partitionLocal ? ctx.partition : undefined;
    if (part?.phase === 'nodes') return deps.searches.graphs.graphShare(scope, deps.graphLimits) as never;
    if (part?.phase === 'seeds' || part?.phase === 'scores' || part?.phase === 'ranked') {
      const request = deps.searches.graphs.recommendRequest(scope, q);
      if (part.phase === 'seeds') return shareToWire(deps.searches.graphs.recommendSeeds(scope, request)) as never;
      const given = part.given as RecommendGiven | undefined;
      if (!given?.plan) throw new TypeError(`a recommendation's ${part.phase} round came without its plan`);
      const plan = planFromWire(given.plan);
      if (part.phase === 'scores') return deps.searches.graphs.recommendMaxima(scope, request, plan) as never;
      return deps.searches.graphs.recommendRanked(scope, request, plan, given.maxima);
    }
    const { partitions } = deps;
    if (partitions && !ctx.partitionLocal && partitions.partitionedOf(caller.tenantId).length > 0) {
      const request = deps.searches.graphs.recommendRequest(scope, q);
      const whole = {
        partitions,
        tenantId: caller.tenantId,
        table: null,
        body,
        principal: caller,
        allowPartial: false,
      };
      return (await partitionedRecommendations(whole, request, deps.graphLimits)) as never;
    }
    return deps.searches.graphs.recommendations(scope, q, deps.graphLimits.maxElements);
  };
