import { performance } from 'node:perf_hooks';
import { graphOf, type DocumentGraph, type GraphLimits, type GraphNode } from '../../engine/graph/build-graph.js';
import {
  recommendPlan,
  uses,
  type RecommendPlan,
  type RecommendRequest,
  type SeedShare,
  type StrategyMaxima,
} from '../../engine/recommend/recommend.js';
import type { SearchAnswer } from '../../engine/search/searches.js';
import { askedLimit, partsOf, type TenantRequest } from './partitioned-request.js';

type Vectors = Record<string, number[]>;

/** A part's SeedShare as it travels: plain JSON. */
export interface WireSeedShare {
  readonly engaged: readonly string[];
  readonly readable: readonly string[];
  readonly models: Record<string, number>;
  readonly seedSums: Record<string, Vectors>;
  readonly users: Record<string, string[]>;
}

/** A RecommendPlan as it travels. */
export interface WirePlan {
  readonly excluded: readonly string[];
  readonly centre: number[] | null;
  readonly model?: string;
  readonly collaborative: Record<string, number>;
  readonly graph: Record<string, number>;
}

/** What a recommendation's later rounds give each part (PartitionRun.given). */
export interface RecommendGiven {
  readonly plan: WirePlan;
  readonly maxima?: StrategyMaxima;
}

const vectorsOf = (byId: ReadonlyMap<string, Float32Array>): Vectors =>
  Object.fromEntries([...byId].map(([id, v]) => [id, [...v]]));

export const shareToWire = (share: SeedShare): WireSeedShare => ({
  engaged: share.engaged,
  readable: share.readable,
  models: Object.fromEntries(share.models),
  seedSums: Object.fromEntries([...share.seedSums].map(([model, byId]) => [model, vectorsOf(byId)])),
  users: Object.fromEntries([...share.users].map(([id, users]) => [id, [...users]])),
});

const shareFromWire = (wire: WireSeedShare): SeedShare => ({
  engaged: wire.engaged,
  readable: wire.readable,
  models: new Map(Object.entries(wire.models)),
  seedSums: new Map(
    Object.entries(wire.seedSums).map(([model, byId]) => [
      model,
      new Map(Object.entries(byId).map(([id, v]) => [id, Float32Array.from(v)])),
    ]),
  ),
  users: new Map(Object.entries(wire.users).map(([id, users]) => [id, new Set(users)])),
});

const planToWire = (plan: RecommendPlan): WirePlan => ({
  excluded: plan.excluded,
  centre: plan.centre && [...plan.centre],
  ...(plan.model !== undefined && { model: plan.model }),
  collaborative: Object.fromEntries(plan.collaborative),
  graph: Object.fromEntries(plan.graph),
});

export const planFromWire = (wire: WirePlan): RecommendPlan => ({
  excluded: wire.excluded,
  centre: wire.centre && Float32Array.from(wire.centre),
  model: wire.model,
  collaborative: new Map(Object.entries(wire.collaborative)),
  graph: new Map(Object.entries(wire.graph)),
});

/**
 * Recommendations on a tenant holding partitioned collections (issue #41, decision 0092), in the steps one node
 * runs in turn (recommend.ts), each over every part (partsOf: each document counted by one part):
 * 1. `seeds`: each part's engagement, readable seeds, their vectors, the model counts and who engaged with what;
 *    with the graph strategy, the graph's nodes too (as a graph query gathers them). This node then plans: the
 *    seeds, their centre, the co-engagement and graph scores.
 * 2. `scores` (a hybrid only): each part's greatest score per strategy among the documents it may rank.
 * 3. `ranked`: each part ranks the documents it counts with the plan (and the maxima); this node merges the parts'
 *    best `limit`, best first, ties by id, as one node orders them.
 *
 * @example const answer = await partitionedRecommendations(request, recommendation, limits);
 */
export async function partitionedRecommendations(
  request: TenantRequest,
  recommendation: RecommendRequest,
  limits: GraphLimits,
): Promise<object> {
  const started = performance.now();
  const op = 'search-recommendations';
  const [seeds, nodes] = await Promise.all([
    partsOf(request, op, { phase: 'seeds' }),
    uses(recommendation, 'graph') ? partsOf(request, op, { phase: 'nodes' }) : undefined,
  ]);
  let graph: DocumentGraph | undefined;
  const gathered = () =>
    (graph ??= graphOf(
      ((nodes?.answers ?? []) as { nodes: GraphNode[] }[]).flatMap((answer) => answer.nodes),
      recommendation.edgeType,
      limits.maxElements,
    ));
  const plan = recommendPlan(recommendation, (seeds.answers as WireSeedShare[]).map(shareFromWire), gathered);
  const wired = planToWire(plan);
  let maxima: StrategyMaxima | undefined;
  if (recommendation.strategy === 'hybrid') {
    const scored = await partsOf(request, op, { phase: 'scores', given: { plan: wired } satisfies RecommendGiven });
    const all = scored.answers as StrategyMaxima[];
    const most = (name: keyof StrategyMaxima) => Math.max(0, ...all.map((m) => m[name]));
    maxima = { content: most('content'), collaborative: most('collaborative'), graph: most('graph') };
  }
  const given: RecommendGiven = { plan: wired, ...(maxima && { maxima }) };
  const ranked = await partsOf(request, op, { phase: 'ranked', given });
  const answers = ranked.answers as SearchAnswer[];
  const seen = new Map<string, SearchAnswer['results'][number]>();
  for (const answer of answers)
    for (const hit of answer.results) if (!seen.has(hit.document_id)) seen.set(hit.document_id, hit);
  const results = [...seen.values()]
    .sort((a, b) => b.score - a.score || a.document_id.localeCompare(b.document_id))
    .slice(0, askedLimit(request.body));
  return {
    results,
    // Each part counted the documents it counts: their sum is the tenant's.
    total_hits: answers.reduce((sum, a) => sum + a.total_hits, 0),
    time_taken: Math.round((performance.now() - started) * 1000) / 1000,
  };
}
