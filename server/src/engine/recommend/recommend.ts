import { createError } from '@godb/contract';
import { buildGraph, defaultGraphLimits } from '../graph/build-graph.js';
import { clientContentVectors, contentVectors } from '../graph/content-vectors.js';
import { traverse } from '../graph/traversal.js';
import type { Hit, LoadedDocument } from '../search/hit.js';
import type { Scope } from '../search/scope.js';
import type { SearchCore } from '../search/search-core.js';

export type Strategy = 'content' | 'collaborative' | 'graph' | 'hybrid';

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

const cosine = (a: Float32Array, b: Float32Array) => {
  let s = 0;
  for (let i = 0; i < a.length; i += 1) s += a[i]! * b[i]!;
  return s;
};

/**
 * Recommendations from a seed document and/or a user's engagement:
 * - content: cosine similarity of document content embeddings to the seed (or to the user's engaged documents),
 *   at least min_similarity;
 * - collaborative: item-item co-engagement, |users(seed) ∩ users(x)| / √(|users(seed)| · |users(x)|);
 * - graph: neighbours within graph_depth along edge_type, scored 1 / hops;
 * - hybrid: the three, each scaled to [0, 1], weighted (weights summing to 1 within 0.001).
 * The seed and the documents the user already engaged with are excluded; every result lists the strategies that
 * contributed and their scores.
 */
export function recommend(
  core: SearchCore,
  scope: Scope,
  request: RecommendRequest,
  maxGraphElements = defaultGraphLimits.maxElements,
): Hit[] {
  const tenant = scope.viewer.tenantId;
  if (request.strategy === 'hybrid') {
    const sum = request.weights.content + request.weights.collaborative + request.weights.graph;
    if (Math.abs(sum - 1) > 0.001) throw createError('WEIGHTS_MUST_SUM_TO_ONE', {}, { field: 'body.content_weight' });
  }
  const seed = request.documentId;
  if (seed !== undefined && !readableIds(core, scope, [seed]).has(seed)) {
    throw createError('NOT_FOUND', { resource: 'Document', id: seed }, { field: 'body.document_id' });
  }
  const engaged = core.engagement.docsOf(tenant, request.userId);
  // The user's engaged documents seed the recommendation only while the caller may still read them.
  const seeds = seed !== undefined ? [seed] : request.vector ? [] : [...readableIds(core, scope, engaged).keys()];
  if (seeds.length === 0 && !request.vector) {
    throw createError(
      'VALIDATION_FAILED',
      { detail: 'body.document_id is required when the user has no engagement to learn from' },
      { field: 'body.document_id' },
    );
  }
  const excluded = new Set([...seeds, ...engaged]);
  const use = (s: Exclude<Strategy, 'hybrid'>) =>
    request.strategy === s || (request.strategy === 'hybrid' && request.weights[s] > 0);
  const scores: Record<'content' | 'collaborative' | 'graph', Map<string, number>> = {
    content: new Map(),
    collaborative: new Map(),
    graph: new Map(),
  };

  if (use('content')) {
    const allIds = core.rows.liveIds(tenant);
    const vectors = request.space
      ? clientContentVectors(core, tenant, request.space, allIds)
      : contentVectors(core, tenant, allIds);
    const seedVectors = [
      ...(request.vector ? [request.vector] : []),
      ...seeds.map((s) => vectors.get(s)).filter((v): v is Float32Array => v !== undefined),
    ];
    if (seedVectors.length > 0) {
      const centre = new Float32Array(seedVectors[0]!.length);
      // Each seed counts by its direction (a given vector may have any length).
      for (const v of seedVectors) {
        const n = Math.hypot(...v) || 1;
        for (let d = 0; d < v.length; d += 1) centre[d]! += v[d]! / n / seedVectors.length;
      }
      const norm = Math.hypot(...centre) || 1;
      for (let d = 0; d < centre.length; d += 1) centre[d]! /= norm;
      for (const [id, v] of vectors) {
        if (excluded.has(id)) continue;
        const similarity = cosine(centre, v);
        if (request.strategy !== 'content' || similarity >= request.minSimilarity) scores.content.set(id, similarity);
      }
    }
  }
  if (use('collaborative')) {
    const usersOf = core.engagement.usersByDoc(tenant);
    // Other people's engagement only: the caller's own is what they asked about. A document is recommended from
    // co-engagement only when at least `minCoEngagers` other people engaged with both, so an answer never
    // reveals what one person read.
    const others = (users: Set<string> | undefined) => [...(users ?? [])].filter((u) => u !== request.userId);
    const seedUsers = new Set(seeds.flatMap((s) => others(usersOf.get(s))));
    for (const [id, users] of usersOf) {
      if (excluded.has(id) || seedUsers.size === 0) continue;
      const theirs = others(users);
      const shared = theirs.filter((u) => seedUsers.has(u)).length;
      if (shared >= minCoEngagers) scores.collaborative.set(id, shared / Math.sqrt(seedUsers.size * theirs.length));
    }
  }
  if (use('graph')) {
    const graph = buildGraph(core, scope, request.edgeType, maxGraphElements);
    for (const s of seeds) {
      if (!graph.hasNode(s)) continue;
      for (const visit of traverse(graph, s, request.graphDepth, 10_000, 'bfs').visits) {
        if (visit.depth === 0 || excluded.has(visit.node)) continue;
        scores.graph.set(visit.node, Math.max(scores.graph.get(visit.node) ?? 0, 1 / visit.depth));
      }
    }
  }

  // Only documents the caller may read are ranked, and scores are scaled among them alone, so no score reveals
  // anything of a document the caller cannot read.
  const docs = readableIds(core, scope, [
    ...new Set([...scores.content.keys(), ...scores.collaborative.keys(), ...scores.graph.keys()]),
  ]);
  const scaled = (map: Map<string, number>) => {
    const kept = [...map].filter(([id]) => docs.has(id));
    const max = Math.max(0, ...kept.map(([, s]) => s));
    return new Map(kept.map(([id, s]) => [id, request.strategy === 'hybrid' && max > 0 ? s / max : s]));
  };
  const parts = {
    content: scaled(scores.content),
    collaborative: scaled(scores.collaborative),
    graph: scaled(scores.graph),
  };
  const hits: Hit[] = [];
  for (const doc of docs.values()) {
    const accepted = core.accept(doc, scope);
    if (!accepted.ok) continue;
    const strategies: Record<string, number> = {};
    for (const name of ['content', 'collaborative', 'graph'] as const) {
      const s = parts[name].get(doc.id);
      if (s !== undefined && s > 0) strategies[name] = Math.round(s * 1e6) / 1e6;
    }
    if (Object.keys(strategies).length === 0) continue;
    let score =
      request.strategy === 'hybrid'
        ? request.weights.content * (strategies.content ?? 0) +
          request.weights.collaborative * (strategies.collaborative ?? 0) +
          request.weights.graph * (strategies.graph ?? 0)
        : (strategies[request.strategy] ?? 0);
    if (request.combineLocation && scope.geo && accepted.distance !== undefined) {
      score = (1 - locationWeight) * score + locationWeight * (1 - accepted.distance / scope.geo.radiusKm);
    }
    hits.push({
      doc,
      score,
      chunks: [],
      strategies,
      ...(accepted.distance !== undefined && { distance: accepted.distance }),
    });
  }
  return hits.sort((a, b) => b.score - a.score || a.doc.id.localeCompare(b.doc.id));
}

/** The live documents among `ids` that the scope's viewer may read (and that are in its table), by id. */
function readableIds(core: SearchCore, scope: Scope, ids: readonly string[]): Map<string, LoadedDocument> {
  if (ids.length === 0) return new Map();
  const seqs = core.rows.seqsOfIds(scope.viewer.tenantId, ids);
  return new Map([...core.load(scope, seqs).values()].map((doc) => [doc.id, doc]));
}
