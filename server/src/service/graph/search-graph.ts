import { maxSearchLimit } from '@godb/contract';
import type { GraphRequest } from '../../engine/graph/graph-query.js';
import type { UseCaseOf } from '../context.js';
import type { SearchDeps } from '../search/deps.js';
import { geoOf, scopeOf } from '../search/scope.js';

const run = (deps: SearchDeps, scope: ReturnType<typeof scopeOf>, request: GraphRequest) =>
  deps.searches.graph(scope, request, deps.graphLimits);

export const searchGraphUseCase =
  (deps: SearchDeps): UseCaseOf<'search-graph'> =>
  async ({ body }, ctx) => {
    const geo =
      body.lat !== undefined && body.lon !== undefined
        ? geoOf({ lat: body.lat, lon: body.lon, radius: body.radius ?? 10, field_name: body.field_name })
        : undefined;
    return run(deps, scopeOf(deps, ctx, { geo }), {
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
    run(deps, scopeOf(deps, ctx), {
      queryType: body.query_type,
      start: body.start_node_id,
      depth: body.depth,
      limit: Math.min(body.limit, maxSearchLimit),
      edgeType: '*',
      dimensions: 100,
      nodeTypes: body.filters.node_types,
    });
