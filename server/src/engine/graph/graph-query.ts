import { centralityTypes, createError, graphQueryTypes } from '@godb/contract';
import type { Scope } from '../search/scope.js';
import type { SearchCore } from '../search/search-core.js';
import { buildGraph, defaultGraphLimits, requireNode, type DocumentGraph, type GraphLimits } from './build-graph.js';
import { centrality, undirectedSubgraph, type CentralityType } from './centrality.js';
import { graphsageEmbeddings, randomWalkEmbeddings, transeEmbeddings } from './node-embeddings.js';
import { astarPath, bellmanFord, bidirectionalPath, lightestEdge, shortestPath, type PathResult } from './paths.js';
import { neighbourhood, traverse } from './traversal.js';

export interface GraphRequest {
  readonly queryType: string;
  readonly start?: string | undefined;
  readonly end?: string | undefined;
  readonly depth: number;
  readonly limit: number;
  readonly edgeType: string;
  readonly centralityType?: string | undefined;
  readonly nodeIds?: readonly string[] | undefined;
  readonly dimensions: number;
  readonly nodeTypes?: readonly string[] | undefined;
}

export interface GraphAnswer {
  query_type: string;
  nodes: { id: string; title: string; score?: number }[];
  edges: { source: string; target: string; type: string; weight: number }[];
  path?: string[];
  cost?: number;
  hops?: number;
  embeddings?: Record<string, number[]>;
}

function pathAnswer(graph: DocumentGraph, queryType: string, result: PathResult | null): GraphAnswer {
  if (!result) return { query_type: queryType, nodes: [], edges: [], path: [] };
  return {
    query_type: queryType,
    nodes: result.path.map((id) => ({ id, title: graph.getNodeAttribute(id, 'title') })),
    edges: result.path
      .slice(1)
      .map((target, i) => ({ source: result.path[i]!, target, ...lightestEdge(graph, result.path[i]!, target) })),
    path: result.path,
    cost: Math.round(result.cost * 1e6) / 1e6,
    hops: result.path.length - 1,
  };
}

/** The nodes a centrality or embedding query runs on: node_ids, else start's neighbourhood, else every node. */
function subgraphNodes(graph: DocumentGraph, request: GraphRequest, limit: number): string[] {
  // A repeated id counts once (a subgraph holds each node once).
  if (request.nodeIds && request.nodeIds.length > 0)
    return [...new Set(request.nodeIds)].filter((id) => graph.hasNode(id));
  if (request.start)
    return neighbourhood(graph, requireNode(graph, request.start, 'body.start_node_id'), request.depth, limit + 1);
  return graph.nodes();
}

/**
 * A graph query's request as the specification's rules take it: query_type among ten, centrality_type among seven,
 * depth at least 1. Checked before any document is read (here, or before a cluster gathers the graph).
 */
export function checkGraphRequest(request: GraphRequest): void {
  if (!(graphQueryTypes as readonly string[]).includes(request.queryType)) {
    throw createError('INVALID_QUERY_TYPE', { allowed: graphQueryTypes.join(', ') }, { field: 'body.query_type' });
  }
  if (request.depth < 1) throw createError('DEPTH_TOO_SMALL', {}, { field: 'body.depth' });
  if (
    request.queryType === 'centrality' &&
    !(centralityTypes as readonly string[]).includes(request.centralityType ?? '')
  ) {
    throw createError(
      'INVALID_CENTRALITY_TYPE',
      { allowed: centralityTypes.join(', ') },
      { field: 'body.centrality_type' },
    );
  }
}

/** A query that asks for no document node (filters.node_types without `document`): nothing to read. */
export const asksNoDocuments = (request: GraphRequest): boolean =>
  request.nodeTypes !== undefined && !request.nodeTypes.includes('document');

/**
 * Runs a graph query on the caller's view of the tenant's document graph (checkGraphRequest first).
 *
 * @example const answer = await runGraphQuery(core, scope, { queryType: 'bfs', start: 'a', depth: 2, limit: 10, edgeType: '*', dimensions: 8 }, features);
 */
export async function runGraphQuery(
  core: SearchCore,
  scope: Scope,
  request: GraphRequest,
  features: (ids: readonly string[]) => Map<string, Float32Array> | Promise<Map<string, Float32Array>>,
  limits: GraphLimits = defaultGraphLimits,
): Promise<GraphAnswer> {
  checkGraphRequest(request);
  if (asksNoDocuments(request)) return { query_type: request.queryType, nodes: [], edges: [] };
  return graphAnswer(buildGraph(core, scope, request.edgeType, limits.maxElements), request, features, limits);
}

/**
 * The answer of a checked graph query on `graph`: paths, traversals, centrality or node embeddings (GraphSAGE's
 * node features from `features`).
 */
export async function graphAnswer(
  graph: DocumentGraph,
  request: GraphRequest,
  features: (ids: readonly string[]) => Map<string, Float32Array> | Promise<Map<string, Float32Array>>,
  limits: GraphLimits = defaultGraphLimits,
): Promise<GraphAnswer> {
  const type = request.queryType;
  if (['shortest_path', 'astar', 'bidirectional', 'bellman_ford'].includes(type)) {
    const start = requireNode(graph, request.start, 'body.start_node_id');
    const end = requireNode(graph, request.end, 'body.end_node_id');
    const find = {
      shortest_path: shortestPath,
      astar: astarPath,
      bidirectional: bidirectionalPath,
      bellman_ford: bellmanFord,
    }[type as 'astar'];
    return pathAnswer(graph, type, find(graph, start, end));
  }
  if (type === 'bfs' || type === 'dfs') {
    const start = requireNode(graph, request.start, 'body.start_node_id');
    const { visits, edges } = traverse(graph, start, request.depth, request.limit, type);
    return {
      query_type: type,
      nodes: visits.map((v) => ({ id: v.node, title: graph.getNodeAttribute(v.node, 'title'), score: v.depth })),
      edges: edges.map(([source, target]) => ({ source, target, ...lightestEdge(graph, source, target) })),
    };
  }
  const nodes = subgraphNodes(graph, request, limits.maxSubgraphNodes);
  if (nodes.length > limits.maxSubgraphNodes) {
    throw createError('GRAPH_BUDGET_EXCEEDED', { budget: limits.maxSubgraphNodes });
  }
  if (type === 'centrality') {
    const scores = centrality(undirectedSubgraph(graph, nodes), request.centralityType as CentralityType);
    const ranked = Object.entries(scores)
      .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
      .slice(0, request.limit);
    return {
      query_type: type,
      nodes: ranked.map(([id, score]) => ({
        id,
        title: graph.getNodeAttribute(id, 'title'),
        score: Math.round(score * 1e6) / 1e6,
      })),
      edges: [],
    };
  }
  const embeddings =
    type === 'embeddings'
      ? randomWalkEmbeddings(graph, nodes, request.dimensions)
      : type === 'transe_embeddings'
        ? transeEmbeddings(graph, nodes, request.dimensions)
        : graphsageEmbeddings(graph, nodes, await features(nodes), request.dimensions);
  const shown = nodes.slice(0, request.limit);
  return {
    query_type: type,
    nodes: shown.map((id) => ({ id, title: graph.getNodeAttribute(id, 'title') })),
    edges: [],
    embeddings: Object.fromEntries(shown.map((id) => [id, embeddings[id]!])),
  };
}
