import { UndirectedGraph } from 'graphology';
import betweennessModule from 'graphology-metrics/centrality/betweenness.js';
import closenessModule from 'graphology-metrics/centrality/closeness.js';
import eigenvectorModule from 'graphology-metrics/centrality/eigenvector.js';
import pagerankModule from 'graphology-metrics/centrality/pagerank.js';
import type { DocumentGraph } from './build-graph.js';

export type CentralityType = 'degree' | 'closeness' | 'betweenness' | 'pagerank' | 'eigenvector' | 'katz' | 'harmonic';

// graphology-metrics is CommonJS whose module.exports is the function; its typings describe an ES default export.
type Scores = Record<string, number>;
const asFunction = <T>(module: unknown) => module as T;
const betweenness = asFunction<(g: UndirectedGraph, o: { normalized: boolean }) => Scores>(betweennessModule);
const closeness = asFunction<(g: UndirectedGraph, o: { wassermanFaust: boolean }) => Scores>(closenessModule);
const eigenvector =
  asFunction<(g: UndirectedGraph, o: { maxIterations: number; tolerance: number }) => Scores>(eigenvectorModule);
const pagerank =
  asFunction<(g: UndirectedGraph, o: { alpha: number; tolerance: number; maxIterations: number }) => Scores>(
    pagerankModule,
  );

/** The subgraph on `nodes`, as a simple undirected graph (centralities read relations both ways). */
export function undirectedSubgraph(graph: DocumentGraph, nodes: readonly string[]): UndirectedGraph {
  const keep = new Set(nodes);
  const sub = new UndirectedGraph({ allowSelfLoops: false });
  for (const node of nodes) sub.addNode(node);
  graph.forEachEdge((_e, _a, s, t) => {
    if (keep.has(s) && keep.has(t) && s !== t && !sub.hasEdge(s, t)) sub.addEdge(s, t);
  });
  return sub;
}

function bfsDistances(graph: UndirectedGraph, source: string): Map<string, number> {
  const distance = new Map<string, number>([[source, 0]]);
  const queue = [source];
  while (queue.length > 0) {
    const node = queue.shift()!;
    graph.forEachNeighbor(node, (next) => {
      if (!distance.has(next)) {
        distance.set(next, distance.get(node)! + 1);
        queue.push(next);
      }
    });
  }
  return distance;
}

/**
 * Katz centrality: x = α·A·x + β with β 1 and α = min(0.1, 0.9 / λmax) so the series converges (λmax, the
 * adjacency matrix's largest eigenvalue, by power iteration); iterated to convergence, scaled to unit length.
 */
function katz(graph: UndirectedGraph): Record<string, number> {
  const nodes = graph.nodes();
  const index = new Map(nodes.map((n, i) => [n, i]));
  const neighbours = nodes.map((n) => graph.neighbors(n).map((m) => index.get(m)!));
  const multiply = (x: Float64Array) => Float64Array.from(neighbours, (list) => list.reduce((s, j) => s + x[j]!, 0));
  let v = new Float64Array(nodes.length).fill(1);
  let lambda = 0;
  for (let i = 0; i < 100; i += 1) {
    const w = multiply(v);
    const norm = Math.hypot(...w) || 1;
    lambda = norm / (Math.hypot(...v) || 1);
    v = w.map((x) => x / norm);
  }
  const alpha = Math.min(0.1, lambda > 0 ? 0.9 / lambda : 0.1);
  let x = new Float64Array(nodes.length);
  for (let i = 0; i < 1000; i += 1) {
    const ax = multiply(x);
    const next = ax.map((value) => alpha * value + 1);
    let delta = 0;
    for (let j = 0; j < next.length; j += 1) delta += Math.abs(next[j]! - x[j]!);
    x = next;
    if (delta < nodes.length * 1e-9) break;
  }
  const norm = Math.hypot(...x) || 1;
  return Object.fromEntries(nodes.map((n, i) => [n, x[i]! / norm]));
}

/**
 * Centrality scores on the undirected subgraph, normalised: degree by n − 1; closeness (n − 1) / Σd over
 * reachable nodes (Wasserman-Faust for disconnected graphs); betweenness by (n − 1)(n − 2) / 2; PageRank (damping
 * 0.85) summing to 1; eigenvector and Katz (α = min(0.1, 0.9/λmax)) to unit length; harmonic Σ 1/d divided by n − 1.
 */
export function centrality(graph: UndirectedGraph, type: CentralityType): Record<string, number> {
  const n = graph.order;
  if (n === 0) return {};
  switch (type) {
    case 'degree':
      return Object.fromEntries(graph.nodes().map((node) => [node, n > 1 ? graph.degree(node) / (n - 1) : 0]));
    case 'closeness':
      return closeness(graph, { wassermanFaust: true });
    case 'betweenness':
      return betweenness(graph, { normalized: true });
    case 'pagerank':
      return pagerank(graph, { alpha: 0.85, tolerance: 1e-10, maxIterations: 1000 });
    case 'eigenvector':
      return graph.size === 0
        ? Object.fromEntries(graph.nodes().map((node) => [node, 1 / Math.sqrt(n)]))
        : eigenvector(graph, { maxIterations: 1000, tolerance: 1e-10 });
    case 'katz':
      return katz(graph);
    case 'harmonic':
      return Object.fromEntries(
        graph.nodes().map((node) => {
          let sum = 0;
          for (const [other, d] of bfsDistances(graph, node)) if (other !== node) sum += 1 / d;
          return [node, n > 1 ? sum / (n - 1) : 0];
        }),
      );
  }
}
