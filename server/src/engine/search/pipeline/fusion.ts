import type { pipelineFusions } from '@godb/contract';

/** One stage's candidates, best first: a document (its seq) and the stage's score. */
export interface Scored {
  readonly key: number;
  readonly score: number;
}

export interface FusionSpec {
  readonly method: (typeof pipelineFusions)[number];
  /** rrf's constant. */
  readonly k: number;
  /** One per stage. */
  readonly weights: readonly number[];
}

/**
 * A stage's scores on the fusion's scale, by key:
 * - rrf: 1 / (k + rank), rank from 1 (only the order counts);
 * - dbsf: (score − (μ − 3σ)) / 6σ clamped to 0–1, μ and σ the stage's mean and population deviation (as Qdrant's
 *   distribution-based fusion; every score equal, or one: 1);
 * - weighted: min-max, the best 1 and the worst 0 (all equal: 1).
 */
export function normalised(list: readonly Scored[], spec: Pick<FusionSpec, 'method' | 'k'>): Map<number, number> {
  if (spec.method === 'rrf') return new Map(list.map((x, i) => [x.key, 1 / (spec.k + i + 1)]));
  if (list.length === 0) return new Map();
  if (spec.method === 'dbsf') {
    const mean = list.reduce((sum, x) => sum + x.score, 0) / list.length;
    const sigma = Math.sqrt(list.reduce((sum, x) => sum + (x.score - mean) ** 2, 0) / list.length);
    if (sigma === 0) return new Map(list.map((x) => [x.key, 1]));
    const low = mean - 3 * sigma;
    return new Map(list.map((x) => [x.key, Math.min(1, Math.max(0, (x.score - low) / (6 * sigma)))]));
  }
  let min = Infinity;
  let max = -Infinity;
  for (const x of list) {
    min = Math.min(min, x.score);
    max = Math.max(max, x.score);
  }
  return new Map(list.map((x) => [x.key, max === min ? 1 : (x.score - min) / (max - min)]));
}

/**
 * The stages fused: Σ weight × normalised score over the stages that found a document (0 from the others), best
 * first; ties keep the order in which the stages first listed the documents (stage 1's first, then stage 2's new ones).
 *
 * @example fuse([[{key: 1, score: 9}], [{key: 2, score: 0.8}]], { method: 'rrf', k: 60, weights: [1, 1] })
 */
export function fuse(lists: readonly (readonly Scored[])[], spec: FusionSpec): Scored[] {
  const total = new Map<number, number>();
  lists.forEach((list, i) => {
    const weight = spec.weights[i] ?? 1;
    for (const [key, score] of normalised(list, spec)) total.set(key, (total.get(key) ?? 0) + weight * score);
  });
  const order = [...total.keys()];
  const position = new Map(order.map((key, i) => [key, i]));
  return order
    .map((key) => ({ key, score: total.get(key)! }))
    .sort((a, b) => b.score - a.score || position.get(a.key)! - position.get(b.key)!);
}
