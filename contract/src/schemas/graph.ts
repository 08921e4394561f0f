import { Type } from '@sinclair/typebox';
import { Enum, Lat, Lon, RadiusKm } from './common.js';
import { Filters } from './search.js';

export const graphQueryTypes = [
  'shortest_path',
  'astar',
  'bidirectional',
  'bellman_ford',
  'bfs',
  'dfs',
  'centrality',
  'embeddings',
  'transe_embeddings',
  'graphsage_embeddings',
] as const;
export const centralityTypes = [
  'degree',
  'closeness',
  'betweenness',
  'pagerank',
  'eigenvector',
  'katz',
  'harmonic',
] as const;
export const recommendationStrategies = ['content', 'collaborative', 'graph', 'hybrid'] as const;

export const GraphSearchRequest = Type.Object(
  {
    start_node_id: Type.Optional(Type.String()),
    end_node_id: Type.Optional(Type.String()),
    depth: Type.Integer({ default: 2, description: 'At least 1.' }),
    limit: Type.Integer({ minimum: 1, default: 10 }),
    query_type: Type.String({ default: 'shortest_path', description: `One of: ${graphQueryTypes.join(', ')}.` }),
    edge_type: Type.String({ default: 'links_to' }),
    centrality_type: Type.Optional(Type.String({ description: `One of: ${centralityTypes.join(', ')}.` })),
    node_ids: Type.Optional(Type.Array(Type.String())),
    dimensions: Type.Integer({ minimum: 2, maximum: 1024, default: 100 }),
    lat: Type.Optional(Lat),
    lon: Type.Optional(Lon),
    radius: Type.Optional(RadiusKm),
    field_name: Type.Optional(Type.String()),
    filters: Type.Optional(
      Type.Object(
        { node_types: Type.Array(Type.String(), { default: ['document'] }) },
        { description: 'Older variant.' },
      ),
    ),
  },
  { additionalProperties: false },
);

export const GraphQueryRequest = Type.Object(
  {
    start_node_id: Type.String({ minLength: 1 }),
    depth: Type.Integer({ default: 2 }),
    limit: Type.Integer({ minimum: 1, default: 10 }),
    query_type: Type.String({ default: 'bfs' }),
    filters: Type.Object(
      { node_types: Type.Array(Type.String(), { default: ['document'] }) },
      { default: { node_types: ['document'] } },
    ),
  },
  { additionalProperties: false },
);

export const GraphResponse = Type.Object({
  query_type: Type.String(),
  nodes: Type.Array(
    Type.Object({ id: Type.String(), title: Type.Optional(Type.String()), score: Type.Optional(Type.Number()) }),
  ),
  edges: Type.Array(
    Type.Object({ source: Type.String(), target: Type.String(), type: Type.String(), weight: Type.Number() }),
  ),
  path: Type.Optional(Type.Array(Type.String())),
  cost: Type.Optional(Type.Number()),
  embeddings: Type.Optional(Type.Record(Type.String(), Type.Array(Type.Number()))),
  time_taken: Type.Number(),
});

export const RecommendationRequest = Type.Object(
  {
    document_id: Type.Optional(Type.String()),
    user_id: Type.Optional(Type.String()),
    dataset_id: Type.Optional(Type.String()),
    limit: Type.Integer({ minimum: 1, default: 10 }),
    strategy: Enum(recommendationStrategies, { default: 'content' }),
    content_weight: Type.Number({ minimum: 0, maximum: 1, default: 0.4 }),
    collab_weight: Type.Number({ minimum: 0, maximum: 1, default: 0.3 }),
    graph_weight: Type.Number({ minimum: 0, maximum: 1, default: 0.3 }),
    min_similarity: Type.Number({ minimum: 0, maximum: 1, default: 0.7 }),
    graph_depth: Type.Integer({ minimum: 1, default: 2 }),
    edge_type: Type.String({ default: 'links_to' }),
    primary_table: Type.Optional(Type.String()),
    lat: Type.Optional(Lat),
    lon: Type.Optional(Lon),
    radius: Type.Optional(RadiusKm),
    field_name: Type.Optional(Type.String()),
    combine_location_score: Type.Boolean({ default: false }),
    filters: Type.Optional(Filters),
  },
  { additionalProperties: false },
);
