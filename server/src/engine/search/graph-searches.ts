import { createError } from '@godb/contract';
import type { Collections } from '../collections/collections.js';
import type { Monotonic } from '../clock.js';
import { defaultGraphLimits, graphShare, type GraphLimits, type GraphShare } from '../graph/build-graph.js';
import { contentVectors, contentVectorSums, type ContentVectorSums } from '../graph/content-vectors.js';
import { runGraphQuery, type GraphAnswer, type GraphRequest } from '../graph/graph-query.js';
import {
  checkRecommendRequest,
  recommend,
  recommendRanked,
  recommendScores,
  seedShare,
  type RecommendPlan,
  type RecommendRequest,
  type SeedShare,
  type StrategyMaxima,
} from '../recommend/recommend.js';
import type { Hit } from './hit.js';
import type { Scope } from './scope.js';
import type { SearchCore } from './search-core.js';
import { finishAnswer, type SearchAnswer } from './vector-answer.js';
import { vectorTarget } from './vector-target.js';

export interface RecommendationsRequest extends Omit<RecommendRequest, 'space' | 'vector'> {
  /** One of the scope's collection's own vectors, to compare by instead of the model's chunk vectors. */
  readonly vectorName?: string | undefined;
  /** With `vectorName`: the point to recommend near. */
  readonly vector?: readonly number[] | undefined;
}

/**
 * The engine's searches of the document graph and by recommendation (Searches.graphs): graph queries and
 * recommendations, and the parts of them a node answers for a cluster's fan-out over partitioned collections
 * (decisions 0090, 0092). Answers as Searches' are: finished, with their time.
 */
export class GraphSearches {
  readonly #core: SearchCore;
  readonly #collections: Collections;
  readonly #monotonic: Monotonic;

  constructor(core: SearchCore, collections: Collections, monotonic: Monotonic) {
    this.#core = core;
    this.#collections = collections;
    this.#monotonic = monotonic;
  }

  /**
   * Recommendations from a seed document and/or a user's engagement (see recommend.ts), by the model's content
   * vectors or one of the scope's collection's own vectors (`vectorName`, with an optional query `vector`).
   */
  recommendations(scope: Scope, q: RecommendationsRequest, maxGraphElements?: number): SearchAnswer {
    const started = this.#monotonic();
    const hits = recommend(this.#core, scope, this.recommendRequest(scope, q), maxGraphElements);
    return this.#answer(started, hits, q.limit);
  }

  /** A recommendation's request as recommend.ts takes it: its collection vector resolved, the vector checked. */
  recommendRequest(scope: Scope, q: RecommendationsRequest): RecommendRequest {
    const target = vectorTarget(this.#collections, scope.viewer.tenantId, {
      primary_table: scope.table,
      vector_name: q.vectorName,
    });
    const space = target && 'collection' in target ? target : undefined;
    if (q.vector !== undefined && !space) {
      throw createError(
        'VALIDATION_FAILED',
        { detail: 'body.vector needs body.vector_name: one of the collection’s own vectors' },
        { field: 'body.vector_name' },
      );
    }
    if (space && q.vector !== undefined && q.vector.length !== space.settings.dimensions) {
      throw createError(
        'INVALID_VECTOR_FORMAT',
        {
          reason: `body.vector has ${q.vector.length} numbers but vector "${space.name}" of collection ${space.collection} has ${space.settings.dimensions} dimensions`,
        },
        { field: 'body.vector' },
      );
    }
    checkRecommendRequest(q);
    return { ...q, space, vector: q.vector && Float32Array.from(q.vector) };
  }

  /** A node's part of a recommendation over partitioned collections (decision 0092): step 1, its SeedShare. */
  recommendSeeds(scope: Scope, request: RecommendRequest): SeedShare {
    return seedShare(this.#core, scope, request);
  }

  /** Its step 2: the greatest score of each strategy among the documents it counts. */
  recommendMaxima(scope: Scope, request: RecommendRequest, plan: RecommendPlan): StrategyMaxima {
    return recommendScores(this.#core, scope, request, plan).maxima;
  }

  /** Its step 3: the documents it counts ranked with every part's maxima, as an answer (its best `limit`). */
  recommendRanked(
    scope: Scope,
    request: RecommendRequest,
    plan: RecommendPlan,
    maxima: StrategyMaxima | undefined,
  ): SearchAnswer {
    const started = this.#monotonic();
    const scored = recommendScores(this.#core, scope, request, plan);
    const hits = recommendRanked(this.#core, scope, request, scored, maxima ?? scored.maxima);
    return this.#answer(started, hits, request.limit, { only: scope.counted });
  }

  /** A graph query on the caller's view of the tenant's document graph (node features: content vectors). */
  async graph(
    scope: Scope,
    request: GraphRequest,
    limits: GraphLimits = defaultGraphLimits,
  ): Promise<GraphAnswer & { time_taken: number }> {
    const started = this.#monotonic();
    const answer = await runGraphQuery(
      this.#core,
      scope,
      request,
      (ids) => contentVectors(this.#core, scope.viewer.tenantId, ids),
      limits,
    );
    return { ...answer, time_taken: this.#elapsed(started) };
  }

  /**
   * A node's part of a graph query over partitioned collections (service/search/partitioned-graph.ts): the
   * documents it counts as graph nodes (and how many it counted before geo), then the content vector sums of some of
   * them (GraphSAGE's features).
   */
  graphShare(scope: Scope, limits: GraphLimits = defaultGraphLimits): GraphShare {
    return graphShare(this.#core, scope, limits.maxElements);
  }

  /** See graphNodes: the chunk vector sums of the documents among `ids` this part counts (all, without counted). */
  contentVectorSums(scope: Scope, ids: readonly string[]): ContentVectorSums {
    const tenantId = scope.viewer.tenantId;
    const counted = scope.counted;
    const mine = counted
      ? [...this.#core.load({ ...scope, filters: undefined }, this.#core.rows.seqsOfIds(tenantId, ids)).values()]
          .filter((doc) => counted(doc))
          .map((doc) => doc.id)
      : ids;
    return contentVectorSums(this.#core, tenantId, mine);
  }

  #elapsed(started: number): number {
    return Math.round((this.#monotonic() - started) * 1000) / 1000;
  }

  #answer(
    started: number,
    hits: readonly Hit[],
    limit: number,
    extra: Parameters<typeof finishAnswer>[4] = {},
  ): SearchAnswer {
    return finishAnswer(this.#core.rows, () => this.#elapsed(started), hits, limit, extra);
  }
}
