import { seededRandom } from '../vectors/kmeans.js';
import type { DocumentGraph } from './build-graph.js';

const normalize = (v: Float64Array): number[] => {
  const n = Math.sqrt(v.reduce((s, x) => s + x * x, 0)) || 1;
  return Array.from(v, (x) => Math.round((x / n) * 1e6) / 1e6);
};

/** Embeddings of `dims` numbers for a graph's nodes, unit length and deterministic for a seed, by node id. */
export type NodeEmbedding = (
  graph: DocumentGraph,
  nodes: readonly string[],
  dims: number,
  seed?: number,
) => Record<string, number[]>;

/** A standard normal deviate from a seeded uniform generator (Box-Muller). */
function gaussian(random: () => number): number {
  return Math.sqrt(-2 * Math.log(random() || 1e-12)) * Math.cos(2 * Math.PI * random());
}

/**
 * Random-walk node embeddings (DeepWalk-style, deterministic for a seed): 10 walks of 20 steps from every node
 * (either edge direction), co-occurrence within a window of 3, positive PMI, then a seeded Gaussian random
 * projection to `dims` dimensions, unit length.
 */
export const randomWalkEmbeddings: NodeEmbedding = (graph, nodes, dims, seed = 42) => {
  const random = seededRandom(seed);
  const index = new Map(nodes.map((n, i) => [n, i]));
  const counts = nodes.map(() => new Map<number, number>());
  const totals = new Float64Array(nodes.length);
  for (const start of nodes) {
    for (let w = 0; w < 10; w += 1) {
      const walk = [start];
      for (let step = 0; step < 20; step += 1) {
        const neighbours = graph.neighbors(walk[walk.length - 1]!).filter((n) => index.has(n));
        if (neighbours.length === 0) break;
        walk.push(neighbours[Math.floor(random() * neighbours.length)]!);
      }
      walk.forEach((node, i) => {
        for (let j = Math.max(0, i - 3); j <= Math.min(walk.length - 1, i + 3); j += 1) {
          if (i === j) continue;
          const a = index.get(node)!;
          const b = index.get(walk[j]!)!;
          counts[a]!.set(b, (counts[a]!.get(b) ?? 0) + 1);
          totals[a]! += 1;
        }
      });
    }
  }
  const grand = totals.reduce((s, x) => s + x, 0) || 1;
  const projection = Array.from({ length: nodes.length }, () =>
    Float64Array.from({ length: dims }, () => gaussian(random)),
  );
  const out: Record<string, number[]> = {};
  nodes.forEach((node, a) => {
    const v = new Float64Array(dims);
    for (const [b, c] of counts[a]!) {
      const pmi = Math.log((c * grand) / ((totals[a] || 1) * (totals[b] || 1)));
      if (pmi <= 0) continue;
      const row = projection[b]!;
      for (let d = 0; d < dims; d += 1) v[d]! += pmi * row[d]!;
    }
    // An isolated node still gets its own (random) direction.
    if (counts[a]!.size === 0) v.set(projection[a]!);
    out[node] = normalize(v);
  });
  return out;
};

/**
 * TransE (Bordes et al. 2013) on the (head, edge type, tail) triples: entities and relations in `dims`
 * dimensions, trained so head + relation ≈ tail, by SGD on a margin loss (margin 1, one corrupted tail per
 * triple, 100 epochs, learning rate 0.01), deterministic for a seed. Answers the entity embeddings.
 */
export const transeEmbeddings: NodeEmbedding = (graph, nodes, dims, seed = 42) => {
  const random = seededRandom(seed);
  const keep = new Set(nodes);
  const bound = 6 / Math.sqrt(dims);
  const init = () => Float64Array.from({ length: dims }, () => (random() * 2 - 1) * bound);
  const entity = new Map(nodes.map((n) => [n, init()]));
  const relation = new Map<string, Float64Array>();
  const triples: [string, string, string][] = [];
  graph.forEachEdge((_e, attributes, s, t) => {
    if (!keep.has(s) || !keep.has(t)) return;
    if (!relation.has(attributes.type)) relation.set(attributes.type, init());
    triples.push([s, attributes.type, t]);
  });
  const unit = (v: Float64Array) => {
    const n = Math.sqrt(v.reduce((s, x) => s + x * x, 0)) || 1;
    for (let d = 0; d < dims; d += 1) v[d]! /= n;
  };
  const distance = (h: Float64Array, r: Float64Array, t: Float64Array) => {
    let s = 0;
    for (let d = 0; d < dims; d += 1) s += (h[d]! + r[d]! - t[d]!) ** 2;
    return Math.sqrt(s);
  };
  const rate = 0.01;
  for (let epoch = 0; epoch < 100 && triples.length > 0; epoch += 1) {
    for (const v of entity.values()) unit(v);
    for (const [hId, rId, tId] of triples) {
      const h = entity.get(hId)!;
      const r = relation.get(rId)!;
      const t = entity.get(tId)!;
      const corrupt = entity.get(nodes[Math.floor(random() * nodes.length)]!)!;
      const positive = distance(h, r, t);
      const negative = distance(h, r, corrupt);
      if (1 + positive - negative <= 0) continue;
      for (let d = 0; d < dims; d += 1) {
        const gp = (h[d]! + r[d]! - t[d]!) / (positive || 1);
        const gn = (h[d]! + r[d]! - corrupt[d]!) / (negative || 1);
        h[d]! -= rate * (gp - gn);
        r[d]! -= rate * (gp - gn);
        t[d]! += rate * gp;
        corrupt[d]! -= rate * gn;
      }
    }
  }
  return Object.fromEntries(nodes.map((n) => [n, normalize(entity.get(n)!)]));
};

/**
 * GraphSAGE-style embeddings with the mean aggregator over the documents' content embeddings: two layers of
 * h ← ReLU(W · [h ; mean of the neighbours' h]) with seeded Gaussian weights (no training: a deterministic
 * structural smoothing of the content vectors), projected to `dims` and unit length.
 */
export function graphsageEmbeddings(
  graph: DocumentGraph,
  nodes: readonly string[],
  features: ReadonlyMap<string, Float32Array>,
  dims: number,
  seed = 42,
): Record<string, number[]> {
  const random = seededRandom(seed);
  const keep = new Set(nodes);
  const inDims = [...features.values()][0]?.length ?? 1;
  let h: Map<string, Float64Array> = new Map(
    nodes.map((n) => [n, Float64Array.from(features.get(n) ?? new Float32Array(inDims))]),
  );
  let width = inDims;
  for (let layer = 0; layer < 2; layer += 1) {
    const scale = 1 / Math.sqrt(2 * width);
    const weights = Array.from({ length: dims }, () =>
      Float64Array.from({ length: 2 * width }, () => gaussian(random) * scale),
    );
    const next = new Map<string, Float64Array>();
    for (const node of nodes) {
      const self = h.get(node)!;
      const mean = new Float64Array(width);
      const neighbours = graph.neighbors(node).filter((n) => keep.has(n));
      for (const n of neighbours) {
        const v = h.get(n)!;
        for (let d = 0; d < width; d += 1) mean[d]! += v[d]! / neighbours.length;
      }
      const out = new Float64Array(dims);
      for (let o = 0; o < dims; o += 1) {
        const w = weights[o]!;
        let s = 0;
        for (let d = 0; d < width; d += 1) s += w[d]! * self[d]! + w[width + d]! * mean[d]!;
        out[o] = Math.max(0, s);
      }
      next.set(node, out);
    }
    h = next;
    width = dims;
  }
  return Object.fromEntries(nodes.map((n) => [n, normalize(h.get(n)!)]));
}
