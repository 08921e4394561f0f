import { MultiDirectedGraph } from 'graphology';
import { createError } from '@godb/contract';
import type { LoadedDocument, Scope, SearchCore } from '../search/search-core.js';

/** The most nodes plus edges a query may load; beyond it the query stops with a clear 400. */
export const graphBudget = 200_000;

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
 * `child_of`), restricted to `edgeType` (`*` for every type). An edge to a document the caller cannot read is
 * dropped, so no path, neighbour or score reveals it.
 */
export function buildGraph(core: SearchCore, scope: Scope, edgeType: string): DocumentGraph {
  const docs = core.all({ ...scope, filters: [] }, graphBudget).filter((d) => !scope.geo || core.accept(d, scope).ok);
  const graph: DocumentGraph = new MultiDirectedGraph<NodeAttributes, EdgeAttributes>({ allowSelfLoops: false });
  for (const doc of docs) graph.addNode(doc.id, { title: doc.title, lat: doc.lat, lon: doc.lon, doc });
  const wanted = (type: string) => edgeType === '*' || edgeType === type;
  const add = (source: string, target: string, type: string, weight: number) => {
    if (source === target || !graph.hasNode(target) || !wanted(type)) return;
    graph.addDirectedEdge(source, target, { type, weight });
    if (graph.order + graph.size > graphBudget) {
      throw createError('GRAPH_BUDGET_EXCEEDED', { budget: graphBudget });
    }
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
