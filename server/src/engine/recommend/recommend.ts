import { createError } from '@godb/contract';
import { buildGraph, defaultGraphLimits, type DocumentGraph } from '../graph/build-graph.js';
import { clientContentVectors, contentVectorSums, contentVectorsOf, mainModel } from '../graph/content-vectors.js';
import { traverse } from '../graph/traversal.js';
import type { Hit, LoadedDocument } from '../search/hit.js';
import type { Scope } from '../search/scope.js';
import type { SearchCore } from '../search/search-core.js';

export type Strategy = 'content' | 'collaborative' | 'graph' | 'hybrid';
type Single = Exclude<Strategy, 'hybrid'>;

export interface RecommendRequest {
  readonly documentId?: string | undefined;
  /** Whose engagement to learn from and exclude; the caller by default. */
  readonly userId: string;
  readonly strategy: Strategy;
  readonly weights: { readonly content: number; readonly collaborative: number; readonly graph: number };
  readonly minSimilarity: number;
  readonly graphDepth: number;
  readonly edgeType: string;
  readonly limit: number;
  readonly combineLocation: boolean;
  /** Content similarity by a collection's own vector instead of the model's chunk vectors. */
  readonly space?: { readonly collection: string; readonly name: string } | undefined;
  /** With `space`: the point to recommend near, instead of (or besides) a seed document. */
  readonly vector?: Float32Array | undefined;
}

/** Other people who engaged with both a seed and a document, at least, before co-engagement recommends it. */
export const minCoEngagers = 2;

/** Weight of proximity when `combine_location_score` is set (as in vector search). */
const locationWeight = 0.3;

const strategies = ['content', 'collaborative', 'graph'] as const;

const cosine = (a: Float32Array, b: Float32Array) => {
  let s = 0;
  for (let i = 0; i < a.length; i += 1) s += a[i]! * b[i]!;
  return s;
};

/** Whether the request scores by `s` (its strategy, or a hybrid weighing it). */
export const uses = (request: RecommendRequest, s: Single): boolean =>
  request.strategy === s || (request.strategy === 'hybrid' && request.weights[s] > 0);

/**
 * What one part of the tenant (all of it on one node; a node's counted share in a cluster, decision 0092) knows of
 * a recommendation's seeds: the user's engagement, which candidate seeds the viewer may read, their vectors, and
 * who engaged with what.
 */
export interface SeedShare {
  /** Document ids the user engaged with, held here. */
  readonly engaged: readonly string[];
  /** The seed (or, without one, the engaged documents) held here that the viewer may read in the scope. */
  readonly readable: readonly string[];
  /** Chunk vectors per model over the documents counted here (content by the model's vectors). */
  readonly models: ReadonlyMap<string, number>;
  /** The readable seeds' chunk vectors summed per model, or (with a space) their unit vectors under ''. */
  readonly seedSums: ReadonlyMap<string, ReadonlyMap<string, Float32Array>>;
  /** The other people who engaged with the readable seeds here (collaborative): a document's holders hold them all. */
  readonly seedUsers: readonly string[];
}

/** The recommendation's checks that need no document: the weights of a hybrid (within 0.001 of 1). */
export function checkRecommendRequest(request: Pick<RecommendRequest, 'strategy' | 'weights'>): void {
  if (request.strategy !== 'hybrid') return;
  const sum = request.weights.content + request.weights.collaborative + request.weights.graph;
  if (Math.abs(sum - 1) > 0.001) throw createError('WEIGHTS_MUST_SUM_TO_ONE', {}, { field: 'body.content_weight' });
}

/**
 * Step 1 on a part: its SeedShare, of the seeds it counts (scope.counted: each seed is one part's, so a lagging
 * replica's copy never seeds a recommendation). One node (no counted) answers a seed it cannot read 404 at once.
 */
export function seedShare(core: SearchCore, scope: Scope, request: RecommendRequest): SeedShare {
  const tenant = scope.viewer.tenantId;
  const counted = scope.counted;
  const engaged = core.engagement.docsOf(tenant, request.userId);
  const candidates = request.documentId !== undefined ? [request.documentId] : request.vector ? [] : engaged;
  const readable = [...readableIds(core, scope, candidates)]
    .filter(([, doc]) => !counted || counted(doc))
    .map(([id]) => id);
  if (!counted && request.documentId !== undefined && readable.length === 0) throw seedNotFound(request.documentId);
  const models = new Map<string, number>();
  let seedSums: Map<string, ReadonlyMap<string, Float32Array>> = new Map();
  if (uses(request, 'content')) {
    if (request.space) {
      seedSums = new Map([['', clientContentVectors(core, tenant, request.space, readable)]]);
    } else {
      for (const row of core.rows.liveChunkModels(tenant))
        if (!counted || counted({ id: row.id, primary_table: row.table }))
          models.set(row.model, (models.get(row.model) ?? 0) + row.n);
      seedSums = new Map(contentVectorSums(core, tenant, readable).sums);
    }
  }
  const seedUsers = new Set<string>();
  if (uses(request, 'collaborative') && readable.length > 0) {
    const usersOf = core.engagement.usersByDoc(tenant);
    for (const id of readable) for (const u of usersOf.get(id) ?? []) if (u !== request.userId) seedUsers.add(u);
  }
  return { engaged, readable, models, seedSums, seedUsers: [...seedUsers] };
}

const seedNotFound = (id: string) =>
  createError('NOT_FOUND', { resource: 'Document', id }, { field: 'body.document_id' });

/** What every part ranks with (step 2): chosen once from every part's SeedShare. */
export interface RecommendPlan {
  /** Seeds and engaged documents, never recommended. */
  readonly excluded: readonly string[];
  /** The unit centre of the seeds' content vectors (null: no content score). */
  readonly centre: Float32Array | null;
  /** The model content vectors are in (undefined with a space). */
  readonly model: string | undefined;
  /** The other people who engaged with the seeds: each part scores its documents' co-engagement with them. */
  readonly seedUsers: readonly string[];
  /** 1 / hops from the nearest seed within graph_depth along edge_type. */
  readonly graph: ReadonlyMap<string, number>;
}

/**
 * Step 1's merge: the seeds (the seed, which someone must be able to read, else 404; or the user's readable engaged
 * documents, ordered by id), their centre, the co-engagement scores, and the graph's (on `graph`, the caller's
 * view of the scope's graph, read only when the graph strategy is used).
 */
export function recommendPlan(
  request: RecommendRequest,
  shares: readonly SeedShare[],
  graph: () => DocumentGraph,
): RecommendPlan {
  const readable = new Set(shares.flatMap((share) => share.readable));
  const seed = request.documentId;
  if (seed !== undefined && !readable.has(seed)) throw seedNotFound(seed);
  const engaged = new Set(shares.flatMap((share) => share.engaged));
  // The user's engaged documents seed the recommendation only while the caller may still read them.
  const seeds = [...readable].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  if (seeds.length === 0 && !request.vector) {
    throw createError(
      'VALIDATION_FAILED',
      { detail: 'body.document_id is required when the user has no engagement to learn from' },
      { field: 'body.document_id' },
    );
  }
  const excluded = new Set([...seeds, ...engaged]);
  let centre: Float32Array | null = null;
  let model: string | undefined;
  if (uses(request, 'content')) {
    model = request.space ? undefined : mainModel(shares.map((share) => share.models));
    const sums = shares.map((share) => share.seedSums.get(request.space ? '' : (model ?? '')) ?? new Map());
    const byId = request.space
      ? new Map(sums.flatMap((m) => [...m]))
      : contentVectorsOf(
          sums.map((m) => ({ counts: new Map(), sums: new Map([[model ?? '', m]]) })),
          model ?? '',
        );
    const seedVectors = [
      ...(request.vector ? [request.vector] : []),
      ...seeds.map((s) => byId.get(s)).filter((v): v is Float32Array => v !== undefined),
    ];
    if (seedVectors.length > 0) {
      centre = new Float32Array(seedVectors[0]!.length);
      // Each seed counts by its direction (a given vector may have any length).
      for (const v of seedVectors) {
        const n = Math.hypot(...v) || 1;
        for (let d = 0; d < v.length; d += 1) centre[d]! += v[d]! / n / seedVectors.length;
      }
      const norm = Math.hypot(...centre) || 1;
      for (let d = 0; d < centre.length; d += 1) centre[d]! /= norm;
    }
  }
  const near = new Map<string, number>();
  if (uses(request, 'graph')) {
    const g = graph();
    for (const s of seeds) {
      if (!g.hasNode(s)) continue;
      for (const visit of traverse(g, s, request.graphDepth, 10_000, 'bfs').visits) {
        if (visit.depth === 0 || excluded.has(visit.node)) continue;
        near.set(visit.node, Math.max(near.get(visit.node) ?? 0, 1 / visit.depth));
      }
    }
  }
  const seedUsers = [...new Set(shares.flatMap((share) => share.seedUsers))].sort();
  return { excluded: [...excluded], centre, model, seedUsers, graph: near };
}

/** Each strategy's greatest score among the documents a part may rank: what a hybrid scales by. */
export type StrategyMaxima = Readonly<Record<Single, number>>;

/**
 * Step 2 on a part: each strategy's scores of the documents it counts (scope.counted) that the viewer may read in
 * the scope, and their greatest.
 */
export function recommendScores(
  core: SearchCore,
  scope: Scope,
  request: RecommendRequest,
  plan: RecommendPlan,
): { docs: Map<string, LoadedDocument>; scores: Record<Single, Map<string, number>>; maxima: StrategyMaxima } {
  const tenant = scope.viewer.tenantId;
  const counted = scope.counted;
  const excluded = new Set(plan.excluded);
  const content = new Map<string, number>();
  if (plan.centre) {
    const ids = counted
      ? core.rows
          .liveIdTables(tenant)
          .filter((row) => counted({ id: row.id, primary_table: row.table }))
          .map((row) => row.id)
      : core.rows.liveIds(tenant);
    const vectors = request.space
      ? clientContentVectors(core, tenant, request.space, ids)
      : contentVectorsOf([contentVectorSums(core, tenant, ids)], plan.model);
    for (const [id, v] of vectors) {
      if (excluded.has(id)) continue;
      const similarity = cosine(plan.centre, v);
      if (request.strategy !== 'content' || similarity >= request.minSimilarity) content.set(id, similarity);
    }
  }
  const collaborative = new Map<string, number>();
  if (plan.seedUsers.length > 0) {
    // Other people's engagement only: the caller's own is what they asked about. A document is recommended from
    // co-engagement only when at least `minCoEngagers` other people engaged with both, so an answer never
    // reveals what one person read. A document's events are all on each holder of its shard.
    const seedUsers = new Set(plan.seedUsers);
    for (const [id, users] of core.engagement.usersByDoc(tenant)) {
      if (excluded.has(id)) continue;
      const theirs = [...users].filter((u) => u !== request.userId);
      const shared = theirs.filter((u) => seedUsers.has(u)).length;
      if (shared >= minCoEngagers) collaborative.set(id, shared / Math.sqrt(seedUsers.size * theirs.length));
    }
  }
  // Only documents the caller may read are ranked, and scores are scaled among them alone, so no score reveals
  // anything of a document the caller cannot read.
  const candidates = [...new Set([...content.keys(), ...collaborative.keys(), ...plan.graph.keys()])];
  const docs = new Map([...readableIds(core, scope, candidates)].filter(([, doc]) => !counted || counted(doc)));
  const kept = (map: ReadonlyMap<string, number>) => new Map([...map].filter(([id]) => docs.has(id)));
  const scores = { content: kept(content), collaborative: kept(collaborative), graph: kept(plan.graph) };
  const max = (map: Map<string, number>) => {
    let m = 0;
    for (const v of map.values()) if (v > m) m = v;
    return m;
  };
  return {
    docs,
    scores,
    maxima: { content: max(scores.content), collaborative: max(scores.collaborative), graph: max(scores.graph) },
  };
}

/**
 * Step 3 on a part: its documents ranked. A hybrid scales each strategy by `maxima` (the greatest over every part)
 * and weighs them; each result lists the strategies that contributed and their scores. Best first, ties by id.
 */
export function recommendRanked(
  core: SearchCore,
  scope: Scope,
  request: RecommendRequest,
  scored: ReturnType<typeof recommendScores>,
  maxima: StrategyMaxima,
): Hit[] {
  const hybrid = request.strategy === 'hybrid';
  const hits: Hit[] = [];
  for (const doc of scored.docs.values()) {
    const accepted = core.accept(doc, scope);
    if (!accepted.ok) continue;
    const parts: Record<string, number> = {};
    for (const name of strategies) {
      const raw = scored.scores[name].get(doc.id);
      const s = raw !== undefined && hybrid && maxima[name] > 0 ? raw / maxima[name] : raw;
      if (s !== undefined && s > 0) parts[name] = Math.round(s * 1e6) / 1e6;
    }
    if (Object.keys(parts).length === 0) continue;
    let score = hybrid
      ? request.weights.content * (parts.content ?? 0) +
        request.weights.collaborative * (parts.collaborative ?? 0) +
        request.weights.graph * (parts.graph ?? 0)
      : (parts[request.strategy] ?? 0);
    if (request.combineLocation && scope.geo && accepted.distance !== undefined) {
      score = (1 - locationWeight) * score + locationWeight * (1 - accepted.distance / scope.geo.radiusKm);
    }
    hits.push({
      doc,
      score,
      chunks: [],
      strategies: parts,
      ...(accepted.distance !== undefined && { distance: accepted.distance }),
    });
  }
  return hits.sort((a, b) => b.score - a.score || a.doc.id.localeCompare(b.doc.id));
}

/**
 * Recommendations from a seed document and/or a user's engagement:
 * - content: cosine similarity of document content embeddings to the seed (or to the user's engaged documents),
 *   at least min_similarity;
 * - collaborative: item-item co-engagement, |users(seed) ∩ users(x)| / √(|users(seed)| · |users(x)|);
 * - graph: neighbours within graph_depth along edge_type, scored 1 / hops;
 * - hybrid: the three, each scaled to [0, 1], weighted (weights summing to 1 within 0.001).
 * The seed and the documents the user already engaged with are excluded; every result lists the strategies that
 * contributed and their scores. The steps one node runs in turn here, a cluster runs over its parts (decision 0092).
 */
export function recommend(
  core: SearchCore,
  scope: Scope,
  request: RecommendRequest,
  maxGraphElements = defaultGraphLimits.maxElements,
): Hit[] {
  checkRecommendRequest(request);
  const plan = recommendPlan(request, [seedShare(core, scope, request)], () =>
    buildGraph(core, scope, request.edgeType, maxGraphElements),
  );
  const scored = recommendScores(core, scope, request, plan);
  return recommendRanked(core, scope, request, scored, scored.maxima);
}

/** The live documents among `ids` that the scope's viewer may read (and that are in its table), by id. */
function readableIds(core: SearchCore, scope: Scope, ids: readonly string[]): Map<string, LoadedDocument> {
  if (ids.length === 0) return new Map();
  const seqs = core.rows.seqsOfIds(scope.viewer.tenantId, ids);
  return new Map([...core.load(scope, seqs).values()].map((doc) => [doc.id, doc]));
}
