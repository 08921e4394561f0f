import { createError } from '@godb/contract';
import { bidirectional as unweightedBidirectional } from 'graphology-shortest-path/unweighted.js';
import { bidirectional as dijkstraBidirectional } from 'graphology-shortest-path/dijkstra.js';
import { haversineKm } from '../search/geo.js';
import type { DocumentGraph } from './build-graph.js';

export interface PathResult {
  readonly path: string[];
  readonly cost: number;
}

/** The lightest edge between two consecutive nodes of a path (multigraph), for costs and answers. */
export function lightestEdge(graph: DocumentGraph, source: string, target: string): { type: string; weight: number } {
  let best = { type: '', weight: Infinity };
  graph.forEachOutEdge(source, (_edge, attributes, _s, t) => {
    if (t === target && attributes.weight < best.weight) best = { type: attributes.type, weight: attributes.weight };
  });
  return best;
}

const costOf = (graph: DocumentGraph, path: readonly string[], weighted: boolean) =>
  path.slice(1).reduce((sum, node, i) => sum + (weighted ? lightestEdge(graph, path[i]!, node).weight : 1), 0);

function assertNonNegative(graph: DocumentGraph, algorithm: string): void {
  graph.forEachEdge((_e, attributes) => {
    if (attributes.weight < 0) {
      throw createError(
        'VALIDATION_FAILED',
        { detail: `${algorithm} needs non-negative edge weights: use query_type bellman_ford` },
        { field: 'body.query_type' },
      );
    }
  });
}

/** Weighted shortest path (Dijkstra, searching from both ends). */
export function shortestPath(graph: DocumentGraph, source: string, target: string): PathResult | null {
  assertNonNegative(graph, 'shortest_path');
  const path = dijkstraBidirectional(graph, source, target, 'weight') as string[] | null;
  return path ? { path, cost: costOf(graph, path, true) } : null;
}

/**
 * Fewest hops, by breadth-first search from both ends: weights do not choose the path (shortest_path does), but
 * its cost is still the sum of its edges' weights, as for every path; the answer's `hops` counts its edges.
 */
export function bidirectionalPath(graph: DocumentGraph, source: string, target: string): PathResult | null {
  const path = unweightedBidirectional(graph, source, target) as string[] | null;
  return path ? { path, cost: costOf(graph, path, true) } : null;
}

/**
 * A* over edge weights read as kilometres: the heuristic is the great-circle distance to the target when both
 * nodes have a location (admissible when weights are at least the distances they span), else 0 — plain
 * Dijkstra.
 */
export function astarPath(graph: DocumentGraph, source: string, target: string): PathResult | null {
  assertNonNegative(graph, 'astar');
  const goal = graph.getNodeAttributes(target);
  const heuristic = (node: string) => {
    const n = graph.getNodeAttributes(node);
    return n.lat !== null && n.lon !== null && goal.lat !== null && goal.lon !== null
      ? haversineKm(n.lat, n.lon, goal.lat, goal.lon)
      : 0;
  };
  const open = new Map<string, number>([[source, heuristic(source)]]);
  const g = new Map<string, number>([[source, 0]]);
  const previous = new Map<string, string>();
  const closed = new Set<string>();
  while (open.size > 0) {
    let current = '';
    let best = Infinity;
    for (const [node, f] of open) if (f < best) [current, best] = [node, f];
    open.delete(current);
    if (current === target) break;
    closed.add(current);
    graph.forEachOutEdge(current, (_e, attributes, _s, next) => {
      if (closed.has(next)) return;
      const tentative = g.get(current)! + attributes.weight;
      if (tentative < (g.get(next) ?? Infinity)) {
        g.set(next, tentative);
        previous.set(next, current);
        open.set(next, tentative + heuristic(next));
      }
    });
  }
  if (!g.has(target)) return null;
  const path = [target];
  while (path[0] !== source) path.unshift(previous.get(path[0]!)!);
  return { path, cost: g.get(target)! };
}

/** Bellman-Ford: negative weights allowed; a negative cycle reachable from the source is a 400, not a hang. */
export function bellmanFord(graph: DocumentGraph, source: string, target: string): PathResult | null {
  const distance = new Map<string, number>([[source, 0]]);
  const previous = new Map<string, string>();
  const edges: [string, string, number][] = [];
  graph.forEachEdge((_e, attributes, s, t) => edges.push([s, t, attributes.weight]));
  for (let i = 0; i < graph.order - 1; i += 1) {
    let changed = false;
    for (const [s, t, w] of edges) {
      const ds = distance.get(s);
      if (ds !== undefined && ds + w < (distance.get(t) ?? Infinity)) {
        distance.set(t, ds + w);
        previous.set(t, s);
        changed = true;
      }
    }
    if (!changed) break;
  }
  for (const [s, t, w] of edges) {
    const ds = distance.get(s);
    if (ds !== undefined && ds + w < (distance.get(t) ?? Infinity)) throw createError('NEGATIVE_CYCLE', { node: t });
  }
  if (!distance.has(target)) return null;
  const path = [target];
  while (path[0] !== source) path.unshift(previous.get(path[0]!)!);
  return { path, cost: distance.get(target)! };
}
