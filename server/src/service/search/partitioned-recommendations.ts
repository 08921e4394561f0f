import { performance } from 'node:perf_hooks';
import { graphOfShares, type GraphLimits, type GraphShare } from '../../engine/graph/build-graph.js';
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

/** Vectors by id, each its float32 bytes in base64: exact, and about a fifth of decimal JSON's size. */
type Vectors = Record<string, string>;

const vectorText = (v: Float32Array) => Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('base64');
const vectorOf = (text: string) => {
  const bytes = Buffer.from(text, 'base64');
  return new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
};

/** A part's SeedShare as it travels: plain JSON. */
export interface WireSeedShare {
  readonly engaged: readonly string[];
  readonly readable: readonly string[];
  readonly models: Record<string, number>;
  readonly seedSums: Record<string, Vectors>;
  readonly seedUsers: readonly string[];
}

/** A RecommendPlan as it travels. */
export interface WirePlan {
  readonly excluded: readonly string[];
  readonly centre: string | null;
  readonly model?: string;
  readonly seedUsers: readonly string[];
  readonly graph: Record<string, number>;
}

/** What a recommendation's later rounds give each part (PartitionRun.given). */
export interface RecommendGiven {
  readonly plan: WirePlan;
  readonly maxima?: StrategyMaxima;
}

const vectorsOf = (byId: ReadonlyMap<string, Float32Array>): Vectors =>
  Object.fromEntries([...byId].map(([id, v]) => [id, vectorText(v)]));

export const shareToWire = (share: SeedShare): WireSeedShare => ({
  engaged: share.engaged,
  readable: share.readable,
  models: Object.fromEntries(share.models),
  seedSums: Object.fromEntries([...share.seedSums].map(([model, byId]) => [model, vectorsOf(byId)])),
  seedUsers: share.seedUsers,
});

const shareFromWire = (wire: WireSeedShare): SeedShare => ({
  engaged: wire.engaged,
  readable: wire.readable,
  models: new Map(Object.entries(wire.models)),
  seedSums: new Map(
    Object.entries(wire.seedSums).map(([model, byId]) => [
      model,
      new Map(Object.entries(byId).map(([id, v]) => [id, vectorOf(v)])),
    ]),
  ),
  seedUsers: wire.seedUsers,
});

const planToWire = (plan: RecommendPlan): WirePlan => ({
  excluded: plan.excluded,
  centre: plan.centre && vectorText(plan.centre),
  ...(plan.model !== undefined && { model: plan.model }),
  seedUsers: plan.seedUsers,
  graph: Object.fromEntries(plan.graph),
});

export const planFromWire = (wire: WirePlan): RecommendPlan => ({
  excluded: wire.excluded,
  centre: wire.centre === null ? null : vectorOf(wire.centre),
  model: wire.model,
  seedUsers: wire.seedUsers,
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
  // Both rounds at once; one node reads the graph only after the plan's checks, so those errors come first here too.
  const [seeds, nodes] = await Promise.allSettled([
    partsOf(request, op, { phase: 'seeds' }),
    uses(recommendation, 'graph') ? partsOf(request, op, { phase: 'nodes' }) : Promise.resolve(undefined),
  ]);
  if (seeds.status === 'rejected') throw seeds.reason;
  const gathered = () => {
    if (nodes.status === 'rejected') throw nodes.reason;
    return graphOfShares((nodes.value?.answers ?? []) as GraphShare[], recommendation.edgeType, limits.maxElements);
  };
  const plan = recommendPlan(recommendation, (seeds.value.answers as WireSeedShare[]).map(shareFromWire), gathered);
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
