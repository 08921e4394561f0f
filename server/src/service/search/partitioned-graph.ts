import { performance } from 'node:perf_hooks';
import { graphOfShares, type GraphLimits, type GraphShare } from '../../engine/graph/build-graph.js';
import { contentVectorsOf, mainModel, type ContentVectorSums } from '../../engine/graph/content-vectors.js';
import {
  asksNoDocuments,
  checkGraphRequest,
  graphAnswer,
  type GraphAnswer,
  type GraphRequest,
} from '../../engine/graph/graph-query.js';
import { partsOf, type TenantRequest } from './partitioned-request.js';

/** A part's content vector sums as they travel: plain JSON. */
export interface WireVectorSums {
  readonly counts: Record<string, number>;
  readonly sums: Record<string, Record<string, number[]>>;
}

export const toWire = (sums: ContentVectorSums): WireVectorSums => ({
  counts: Object.fromEntries(sums.counts),
  sums: Object.fromEntries(
    [...sums.sums].map(([model, byDoc]) => [model, Object.fromEntries([...byDoc].map(([id, v]) => [id, [...v]]))]),
  ),
});

const fromWire = (wire: WireVectorSums): ContentVectorSums => ({
  counts: new Map(Object.entries(wire.counts)),
  sums: new Map(
    Object.entries(wire.sums).map(([model, byDoc]) => [
      model,
      new Map(Object.entries(byDoc).map(([id, v]) => [id, Float32Array.from(v)])),
    ]),
  ),
});

/**
 * A graph query of a tenant holding partitioned collections (issue #41, decision 0090). The graph is the caller's
 * readable documents of the whole tenant and their edges, whichever shard holds them, and its algorithms need it
 * whole, so the asking node gathers it: every part (partsOf) answers the documents it counts as graph nodes (each
 * document is counted by one part), and the asking node builds the graph as one node holding everything does
 * (graphOf: nodes in id order) and answers the query. GraphSAGE's node features are asked of the parts in a second
 * round, for the nodes it reads only. The graph's budget (GRAPH_MAX_ELEMENTS) bounds what is gathered.
 *
 * @example const answer = await partitionedGraph(request, { queryType: 'bfs', start: 'a', depth: 2, limit: 10, edgeType: '*', dimensions: 8 }, limits);
 */
export async function partitionedGraph(
  request: TenantRequest,
  operationId: 'search-graph' | 'graph-query',
  query: GraphRequest,
  limits: GraphLimits,
): Promise<GraphAnswer & { time_taken: number }> {
  const started = performance.now();
  checkGraphRequest(query);
  const elapsed = () => Math.round((performance.now() - started) * 1000) / 1000;
  if (asksNoDocuments(query)) return { query_type: query.queryType, nodes: [], edges: [], time_taken: elapsed() };
  const gathered = await partsOf(request, operationId, { phase: 'nodes' });
  const graph = graphOfShares(gathered.answers as GraphShare[], query.edgeType, limits.maxElements);
  const features = async (ids: readonly string[]) => {
    const asked = await partsOf(request, operationId, { phase: 'features', ids });
    const sums = (asked.answers as WireVectorSums[]).map(fromWire);
    return contentVectorsOf(sums, mainModel(sums.map((part) => part.counts)));
  };
  const answer = await graphAnswer(graph, query, features, limits);
  return { ...answer, time_taken: elapsed() };
}
