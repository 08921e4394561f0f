import { defineOperation } from '../define-operation.js';
import { checkGraphQuery } from '../playground-checks.js';
import { graphQueryTypes, GraphQueryRequest, GraphResponse } from '../schemas/graph.js';

export const graphQuery = defineOperation({
  id: 'graph-query',
  name: 'Graph Query (legacy)',
  category: 'graph',
  summary: 'The older graph query call',
  description:
    'Kept for older clients: start_node_id, depth, limit, query_type and filters {node_types, default [document]}.',
  http: { method: 'POST', path: '/api/v1/graph/query', aliases: ['/graph/query'] },
  access: 'user',
  body: GraphQueryRequest,
  success: { status: 200, schema: GraphResponse, description: 'Nodes and edges reached.' },
  errors: ['INVALID_QUERY_TYPE', 'DEPTH_TOO_SMALL', 'NOT_FOUND', 'GRAPH_BUDGET_EXCEEDED'],
  examples: [
    {
      summary: 'Breadth-first neighbourhood',
      body: {
        start_node_id: 'cran-0012',
        depth: 2,
        limit: 10,
        query_type: 'bfs',
        filters: { node_types: ['document'] },
      },
      response: {
        status: 200,
        body: {
          query_type: 'bfs',
          nodes: [{ id: 'cran-0012' }, { id: 'cran-0200' }],
          edges: [{ source: 'cran-0012', target: 'cran-0200', type: 'links_to', weight: 1 }],
          time_taken: 0.4,
        },
      },
    },
  ],
  playground: {
    check: checkGraphQuery,
    hints: {
      start_node_id: { placeholder: 'cran-0012' },
      limit: { placeholder: 'Nodes to return, e.g. 10' },
      query_type: { kind: 'select', options: graphQueryTypes, default: 'bfs' },
      filters: {
        kind: 'textarea',
        placeholder: '{"node_types": ["document"]}',
        default: '{"node_types": ["document"]}',
      },
    },
  },
});
