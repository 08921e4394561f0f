import { maxSearchLimit } from '@godb/contract';
import type { GraphAnswer, GraphRequest } from '../../engine/graph/graph-query.js';
import type { RequestContext, UseCaseOf } from '../context.js';
import type { SearchDeps } from '../search/deps.js';
import { partitionedGraph, toWire } from '../search/partitioned-graph.js';
import { geoOf, scopeOf } from '../search/scope.js';

type GraphOperation = 'search-graph' | 'graph-query';

/**
 * A graph query here, or, on a tenant holding partitioned collections (cluster mode), gathered from every node's
 * part (partitioned-graph.ts); on such a part, this node's rounds of it.
 */
async function run(
  deps: SearchDeps,
  ctx: RequestContext,
  asked: { readonly operationId: GraphOperation; readonly body: unknown },
  scope: ReturnType<typeof scopeOf>,
  request: GraphRequest,
): Promise<GraphAnswer & { time_taken: number }> {
  const { partitions } = deps;
  const part = ctx.partitionLocal ? ctx.partition : undefined;
  // A part's rounds answer what the asking node gathers, not the operation's answer.
  if (part?.phase === 'nodes') return deps.searches.graphs.graphShare(scope, deps.graphLimits) as never;
  if (part?.phase === 'features') return toWire(deps.searches.graphs.contentVectorSums(scope, part.ids ?? [])) as never;
  const principal = ctx.principal;
  if (partitions && principal && !ctx.partitionLocal && partitions.partitionedOf(principal.tenantId).length > 0) {
    const whole = { partitions, tenantId: principal.tenantId, table: null, principal, allowPartial: false };
    const gathered = { ...whole, body: asked.body };
    return partitionedGraph(gathered, asked.operationId, request, deps.graphLimits);
  }
  return deps.searches.graphs.graph(scope, request, deps.graphLimits);
}

export const searchGraphUseCase =
  (deps: SearchDeps): UseCaseOf<'search-graph'> =>
  async ({ body }, ctx) => {
    const geo =
      body.lat !== undefined && body.lon !== undefined
        ? geoOf({ lat: body.lat, lon: body.lon, radius: body.radius ?? 10, field_name: body.field_name })
        : undefined;
    return run(deps, ctx, { operationId: 'search-graph', body }, scopeOf(deps, ctx, { geo }), {
      queryType: body.query_type,
      start: body.start_node_id,
      end: body.end_node_id,
      depth: body.depth,
      limit: Math.min(body.limit, maxSearchLimit),
      edgeType: body.edge_type,
      centralityType: body.centrality_type,
      nodeIds: body.node_ids,
      dimensions: body.dimensions,
      nodeTypes: body.filters?.node_types,
    });
  };

/** The older /graph/query call: every edge type, filters {node_types}. */
export const graphQueryUseCase =
  (deps: SearchDeps): UseCaseOf<'graph-query'> =>
  async ({ body }, ctx) =>
    run(deps, ctx, { operationId: 'graph-query', body }, scopeOf(deps, ctx), {
      queryType: body.query_type,
      start: body.start_node_id,
      depth: body.depth,
      limit: Math.min(body.limit, maxSearchLimit),
      edgeType: '*',
      dimensions: 100,
      nodeTypes: body.filters.node_types,
    });
