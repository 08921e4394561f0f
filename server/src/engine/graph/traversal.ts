import type { DocumentGraph } from './build-graph.js';

export interface Visit {
  readonly node: string;
  readonly depth: number;
}

/**
 * Breadth-first or depth-first visit from a node (following edge direction), at most `depth` hops and `limit`
 * nodes, in visiting order, with the tree edges used.
 */
export function traverse(
  graph: DocumentGraph,
  start: string,
  depth: number,
  limit: number,
  order: 'bfs' | 'dfs',
): { visits: Visit[]; edges: [string, string][] } {
  const visits: Visit[] = [];
  const edges: [string, string][] = [];
  const seen = new Set<string>([start]);
  if (order === 'bfs') {
    const queue: Visit[] = [{ node: start, depth: 0 }];
    while (queue.length > 0 && visits.length < limit) {
      const current = queue.shift()!;
      visits.push(current);
      if (current.depth >= depth) continue;
      graph.forEachOutNeighbor(current.node, (neighbor) => {
        if (seen.has(neighbor)) return;
        seen.add(neighbor);
        edges.push([current.node, neighbor]);
        queue.push({ node: neighbor, depth: current.depth + 1 });
      });
    }
  } else {
    const visit = (node: string, d: number) => {
      if (visits.length >= limit) return;
      visits.push({ node, depth: d });
      if (d >= depth) return;
      for (const neighbor of graph.outNeighbors(node)) {
        if (seen.has(neighbor) || visits.length >= limit) continue;
        seen.add(neighbor);
        edges.push([node, neighbor]);
        visit(neighbor, d + 1);
      }
    };
    visit(start, 0);
  }
  const visited = new Set(visits.map((v) => v.node));
  return { visits, edges: edges.filter(([, t]) => visited.has(t)) };
}

/** The nodes within `depth` hops of `start`, in either direction (the neighbourhood centralities run on). */
export function neighbourhood(graph: DocumentGraph, start: string, depth: number, limit: number): string[] {
  const seen = new Set<string>([start]);
  let frontier = [start];
  for (let d = 0; d < depth && frontier.length > 0 && seen.size < limit; d += 1) {
    const next: string[] = [];
    for (const node of frontier) {
      graph.forEachNeighbor(node, (neighbor) => {
        if (!seen.has(neighbor) && seen.size < limit) {
          seen.add(neighbor);
          next.push(neighbor);
        }
      });
    }
    frontier = next;
  }
  return [...seen];
}
