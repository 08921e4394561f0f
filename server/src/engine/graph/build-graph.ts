import { MultiDirectedGraph } from 'graphology';
import { ConfigSchema, createError } from '@godb/contract';
import type { Scope } from '../search/scope.js';
import type { SearchCore } from '../search/search-core.js';

/**
 * How much a graph query may load and compute on; beyond it the query stops with a clear 400 instead of
 * stalling the server (configured by GRAPH_MAX_ELEMENTS and GRAPH_MAX_SUBGRAPH_NODES).
 */
export interface GraphLimits {
  /** Nodes plus edges of the caller's document graph. */
  readonly maxElements: number;
  /** Nodes a centrality or graph-embedding query runs on (their cost grows with nodes × edges). */
  readonly maxSubgraphNodes: number;
}

/** The configuration's defaults, for callers that do not pass limits. */
export const defaultGraphLimits: GraphLimits = {
  maxElements: ConfigSchema.properties.GRAPH_MAX_ELEMENTS.default as number,
  maxSubgraphNodes: ConfigSchema.properties.GRAPH_MAX_SUBGRAPH_NODES.default as number,
};

export interface NodeAttributes {
  readonly title: string;
  readonly lat: number | null;
  readonly lon: number | null;
}

export interface EdgeAttributes {
  readonly type: string;
  readonly weight: number;
}

export type DocumentGraph = MultiDirectedGraph<NodeAttributes, EdgeAttributes>;

/**
 * A document as the graph reads it: plain data, so that a node's part of a graph query over partitioned collections
 * can send it to the asking node (service/search/partitioned-graph.ts).
 */
export interface GraphNode {
  readonly id: string;
  readonly title: string;
  readonly lat: number | null;
  readonly lon: number | null;
  readonly parent: string | null;
  readonly edges: readonly { readonly target_id: string; readonly type?: string; readonly weight?: number }[];
}

const exceeded = (budget: number) => createError('GRAPH_BUDGET_EXCEEDED', { budget });

/** What a part of a graph query answers: its nodes, and how many readable documents it counted before geo. */
export interface GraphShare {
  readonly nodes: GraphNode[];
  readonly readable: number;
}

/**
 * The documents the caller may read (within the scope's geo restriction) as graph nodes; on a node's part of a
 * fanned-out query, those it counts (Scope.counted), with how many it counted before the geo restriction (the
 * budget's measure, summed over the parts). More than `maxElements` readable documents: 400.
 */
export function graphShare(core: SearchCore, scope: Scope, maxElements = defaultGraphLimits.maxElements): GraphShare {
  // What a part holds is a subset of the tenant: over the budget here, over it on one node holding everything.
  const loaded = core.all({ ...scope, filters: undefined }, maxElements + 1);
  if (loaded.length > maxElements) throw exceeded(maxElements);
  const counted = scope.counted;
  const mine = counted ? loaded.filter((d) => counted(d)) : loaded;
  const nodes = mine
    .filter((d) => !scope.geo || core.accept(d, scope).ok)
    .map((d) => ({
      id: d.id,
      title: d.title,
      lat: d.lat,
      lon: d.lon,
      parent: d.parent_doc_id ?? null,
      edges: (d.fields.edges as GraphNode['edges'] | undefined) ?? [],
    }));
  return { nodes, readable: mine.length };
}

/**
 * The graph of the parts' shares (each document counted by one part): their readable documents over the budget is
 * the same 400 as one node's.
 */
export function graphOfShares(shares: readonly GraphShare[], edgeType: string, maxElements: number): DocumentGraph {
  if (shares.reduce((sum, share) => sum + share.readable, 0) > maxElements) throw exceeded(maxElements);
  return graphOf(
    shares.flatMap((share) => share.nodes),
    edgeType,
    maxElements,
  );
}

/**
 * The tenant's document graph as the caller may see it: nodes are the documents the caller can read, added in id
 * order (so one node holding everything and a cluster gathering the nodes from its shards build the same graph);
 * edges are the documents' declared edges ({target_id, type, weight}) and the parent/child relations
 * (`parent_of`, `child_of`), restricted to `edgeType` (`*` for every type). An edge from or to a document the
 * caller cannot read is dropped, so no path, neighbour or score reveals it.
 */
export function graphOf(
  nodes: readonly GraphNode[],
  edgeType: string,
  maxElements = defaultGraphLimits.maxElements,
): DocumentGraph {
  if (nodes.length > maxElements) throw exceeded(maxElements);
  const docs = [...nodes].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const graph: DocumentGraph = new MultiDirectedGraph<NodeAttributes, EdgeAttributes>({ allowSelfLoops: false });
  for (const doc of docs) graph.addNode(doc.id, { title: doc.title, lat: doc.lat, lon: doc.lon });
  const wanted = (type: string) => edgeType === '*' || edgeType === type;
  const add = (source: string, target: string, type: string, weight: number) => {
    // Both ends: a parent the caller cannot read (private, or deleted) is as absent as an unreadable target.
    if (source === target || !graph.hasNode(source) || !graph.hasNode(target) || !wanted(type)) return;
    graph.addDirectedEdge(source, target, { type, weight });
    if (graph.order + graph.size > maxElements) throw exceeded(maxElements);
  };
  for (const doc of docs) {
    for (const edge of doc.edges) add(doc.id, edge.target_id, edge.type ?? 'links_to', edge.weight ?? 1);
    if (doc.parent) {
      add(doc.parent, doc.id, 'parent_of', 1);
      add(doc.id, doc.parent, 'child_of', 1);
    }
  }
  return graph;
}

/** graphOf the documents the scope's caller may read here (graphShare). */
export function buildGraph(
  core: SearchCore,
  scope: Scope,
  edgeType: string,
  maxElements = defaultGraphLimits.maxElements,
): DocumentGraph {
  return graphOf(graphShare(core, scope, maxElements).nodes, edgeType, maxElements);
}

/** A node the caller may see, or 404 (missing and hidden documents look the same). */
export function requireNode(graph: DocumentGraph, id: string | undefined, field: string): string {
  if (!id) throw createError('VALIDATION_FAILED', { detail: `${field} is required for this query_type` }, { field });
  if (!graph.hasNode(id)) throw createError('NOT_FOUND', { resource: 'Document', id }, { field });
  return id;
}
