import { Type } from '@sinclair/typebox';
import { Enum, Id, inputLimits, Lat, Lon, Name, RadiusKm } from './common.js';
import { Filters } from './search.js';
import { DocumentVector } from './document.js';

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

// Depth has no minimum here: below 1 the service answers the specification's "Depth must be greater than 0".
const depth = Type.Integer({
  default: 2,
  minimum: -inputLimits.count,
  maximum: inputLimits.depth,
  description: `At least 1, at most ${inputLimits.depth}.`,
});
const limit = Type.Integer({ minimum: 1, maximum: inputLimits.count, default: 10 });
const NodeTypes = Type.Array(Name(), { maxItems: 16, default: ['document'] });

export const GraphSearchRequest = Type.Object(
  {
    start_node_id: Type.Optional(Type.String({ maxLength: inputLimits.id })),
    end_node_id: Type.Optional(Type.String({ maxLength: inputLimits.id })),
    depth,
    limit,
    query_type: Name({
      default: 'shortest_path',
      description:
        `One of: ${graphQueryTypes.join(', ')}. shortest_path, astar and bellman_ford find the path of least ` +
        'weight (the sum of its edges’ weights); bidirectional finds the path with the fewest edges, whatever ' +
        'their weights, and still reports `cost` as that path’s weight sum (`hops` counts its edges).',
    }),
    edge_type: Name({ default: 'links_to' }),
    centrality_type: Type.Optional(Name({ description: `One of: ${centralityTypes.join(', ')}.` })),
    node_ids: Type.Optional(
      Type.Array(Id, {
        maxItems: inputLimits.nodeIds,
        description: `At most ${inputLimits.nodeIds}; a repeated id counts once.`,
      }),
    ),
    dimensions: Type.Integer({ minimum: 2, maximum: 1024, default: 100 }),
    lat: Type.Optional(Lat),
    lon: Type.Optional(Lon),
    radius: Type.Optional(RadiusKm),
    field_name: Type.Optional(Name()),
    filters: Type.Optional(Type.Object({ node_types: NodeTypes }, { description: 'Older variant.' })),
  },
  { additionalProperties: false },
);

export const GraphQueryRequest = Type.Object(
  {
    start_node_id: Type.String({ minLength: 1, maxLength: inputLimits.id }),
    depth,
    limit,
    query_type: Name({ default: 'bfs' }),
    filters: Type.Object({ node_types: NodeTypes }, { default: { node_types: ['document'] } }),
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
  cost: Type.Optional(
    Type.Number({
      description:
        'Sum of the path’s edge weights (every path query): the least possible for shortest_path, astar and ' +
        'bellman_ford; for bidirectional, the weight of the path with the fewest edges, which may be more.',
    }),
  ),
  hops: Type.Optional(Type.Integer({ description: 'Edges on the path.' })),
  embeddings: Type.Optional(Type.Record(Type.String(), Type.Array(Type.Number()))),
  time_taken: Type.Number(),
});

export const RecommendationRequest = Type.Object(
  {
    document_id: Type.Optional(Type.String({ maxLength: inputLimits.id })),
    user_id: Type.Optional(Type.String({ maxLength: inputLimits.id })),
    dataset_id: Type.Optional(Name()),
    limit,
    strategy: Enum(recommendationStrategies, { default: 'content' }),
    content_weight: Type.Number({ minimum: 0, maximum: 1, default: 0.4 }),
    collab_weight: Type.Number({ minimum: 0, maximum: 1, default: 0.3 }),
    graph_weight: Type.Number({ minimum: 0, maximum: 1, default: 0.3 }),
    min_similarity: Type.Number({ minimum: 0, maximum: 1, default: 0.7 }),
    graph_depth: Type.Integer({ minimum: 1, maximum: inputLimits.depth, default: 2 }),
    edge_type: Name({ default: 'links_to' }),
    primary_table: Type.Optional(Name()),
    lat: Type.Optional(Lat),
    lon: Type.Optional(Lon),
    radius: Type.Optional(RadiusKm),
    field_name: Type.Optional(Name()),
    combine_location_score: Type.Boolean({ default: false }),
    filters: Type.Optional(Filters),
    vector_name: Type.Optional(
      Name({
        description:
          'Content similarity by one of the collection’s own vectors (needs primary_table) instead of the model’s chunk vectors.',
      }),
    ),
    vector: Type.Optional(
      DocumentVector('With vector_name: recommend what is near this vector (no seed document needed).'),
    ),
  },
  { additionalProperties: false },
);
