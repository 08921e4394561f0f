import { defineOperation } from '../define-operation.js';
import { checkGraphQuery } from '../playground-checks.js';
import { centralityTypes, graphQueryTypes, GraphResponse, GraphSearchRequest } from '../schemas/graph.js';

export const searchGraph = defineOperation({
  id: 'search-graph',
  name: 'Graph Search',
  category: 'graph',
  summary: 'Paths, traversals, centrality and node embeddings',
  description:
    'Paths, rankings and embeddings of the document graph, by query_type: shortest_path, astar, bidirectional, bellman_ford, bfs, dfs, centrality (centrality_type degree, closeness, betweenness, pagerank, eigenvector, katz or harmonic), embeddings, transe_embeddings or graphsage_embeddings, over the edges of type edge_type. The older variant’s filters {node_types} is accepted too.',
  http: { method: 'POST', path: '/api/v1/search/graph', aliases: ['/search/graph'] },
  access: 'user',
  body: GraphSearchRequest,
  success: { status: 200, schema: GraphResponse, description: 'Nodes, edges, and the path, scores or embeddings.' },
  errors: [
    'INVALID_QUERY_TYPE',
    'INVALID_CENTRALITY_TYPE',
    'DEPTH_TOO_SMALL',
    'NOT_FOUND',
    'NEGATIVE_CYCLE',
    'GRAPH_BUDGET_EXCEEDED',
  ],
  examples: [
    {
      summary: 'Shortest path between two documents',
      body: {
        start_node_id: 'cran-0012',
        end_node_id: 'cran-0451',
        query_type: 'shortest_path',
        depth: 2,
        edge_type: 'links_to',
      },
      response: {
        status: 200,
        body: {
          query_type: 'shortest_path',
          nodes: [{ id: 'cran-0012' }, { id: 'cran-0200' }, { id: 'cran-0451' }],
          edges: [
            { source: 'cran-0012', target: 'cran-0200', type: 'links_to', weight: 1 },
            { source: 'cran-0200', target: 'cran-0451', type: 'links_to', weight: 1 },
          ],
          path: ['cran-0012', 'cran-0200', 'cran-0451'],
          cost: 2,
          time_taken: 0.9,
        },
      },
    },
  ],
  playground: {
    check: checkGraphQuery,
    hidden: ['filters'],
    hints: {
      start_node_id: { placeholder: 'cran-0012' },
      end_node_id: { placeholder: 'cran-0207 (path queries)' },
      limit: { placeholder: 'Nodes to return, e.g. 10' },
      edge_type: { placeholder: 'links_to' },
      dimensions: { placeholder: 'Embedding size, e.g. 100' },
      field_name: { placeholder: 'Optional: location' },
      query_type: { kind: 'select', options: graphQueryTypes, default: 'shortest_path' },
      centrality_type: { kind: 'select', options: centralityTypes },
      node_ids: { placeholder: 'comma,separated,node,ids' },
    },
  },
});
