import { MultiDirectedGraph } from 'graphology';
import { ConfigSchema, createError } from '@godb/contract';
import type { LoadedDocument } from '../search/hit.js';
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
  readonly doc: LoadedDocument;
}

export interface EdgeAttributes {
  readonly type: string;
  readonly weight: number;
}

export type DocumentGraph = MultiDirectedGraph<NodeAttributes, EdgeAttributes>;

/**
 * The tenant's document graph as the caller may see it: nodes are the documents the caller can read; edges are
 * the documents' declared edges ({target_id, type, weight}) and the parent/child relations (`parent_of`,
 * `child_of`), restricted to `edgeType` (`*` for every type). An edge from or to a document the caller cannot read
 * is dropped, so no path, neighbour or score reveals it.
 */
export function buildGraph(
  core: SearchCore,
  scope: Scope,
  edgeType: string,
  maxElements = defaultGraphLimits.maxElements,
): DocumentGraph {
  const exceeded = () => createError('GRAPH_BUDGET_EXCEEDED', { budget: maxElements });
  const loaded = core.all({ ...scope, filters: undefined }, maxElements + 1);
  if (loaded.length > maxElements) throw exceeded();
  const docs = loaded.filter((d) => !scope.geo || core.accept(d, scope).ok);
  const graph: DocumentGraph = new MultiDirectedGraph<NodeAttributes, EdgeAttributes>({ allowSelfLoops: false });
  for (const doc of docs) graph.addNode(doc.id, { title: doc.title, lat: doc.lat, lon: doc.lon, doc });
  const wanted = (type: string) => edgeType === '*' || edgeType === type;
  const add = (source: string, target: string, type: string, weight: number) => {
    // Both ends: a parent the caller cannot read (private, or deleted) is as absent as an unreadable target.
    if (source === target || !graph.hasNode(source) || !graph.hasNode(target) || !wanted(type)) return;
    graph.addDirectedEdge(source, target, { type, weight });
    if (graph.order + graph.size > maxElements) throw exceeded();
  };
  for (const doc of docs) {
    for (const edge of (doc.fields.edges as { target_id: string; type?: string; weight?: number }[] | undefined) ??
      []) {
      add(doc.id, edge.target_id, edge.type ?? 'links_to', edge.weight ?? 1);
    }
    if (doc.parent_doc_id) {
      add(doc.parent_doc_id, doc.id, 'parent_of', 1);
      add(doc.id, doc.parent_doc_id, 'child_of', 1);
    }
  }
  return graph;
}

/** A node the caller may see, or 404 (missing and hidden documents look the same). */
export function requireNode(graph: DocumentGraph, id: string | undefined, field: string): string {
  if (!id) throw createError('VALIDATION_FAILED', { detail: `${field} is required for this query_type` }, { field });
  if (!graph.hasNode(id)) throw createError('NOT_FOUND', { resource: 'Document', id }, { field });
  return id;
}
