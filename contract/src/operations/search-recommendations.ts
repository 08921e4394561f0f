import { defineOperation } from '../define-operation.js';
import { checkRecommendations } from '../playground-checks.js';
import { RecommendationRequest } from '../schemas/graph.js';
import { SearchResponse } from '../schemas/search.js';
import { exampleRecommendationsResponse } from './search-example.js';

export const searchRecommendations = defineOperation({
  id: 'search-recommendations',
  name: 'Recommendations',
  category: 'search',
  summary: 'Documents like a document, or for a user',
  description:
    'Recommends by strategy: content (vector similarity), collaborative (co-engagement), graph (neighbours within graph_depth along edge_type) or hybrid (weighted by content_weight, collab_weight and graph_weight, which must sum to 1 within 0.001). The seed document and documents the user already engaged with are excluded.',
  http: { method: 'POST', path: '/api/v1/search/recommendations', aliases: ['/search/recommendations'] },
  access: 'user',
  body: RecommendationRequest,
  success: { status: 200, schema: SearchResponse, description: 'Recommended documents.' },
  errors: ['WEIGHTS_MUST_SUM_TO_ONE', 'NOT_FOUND', 'FORBIDDEN', 'INVALID_FILTERS_JSON', 'GRAPH_BUDGET_EXCEEDED'],
  examples: [
    {
      summary: 'Hybrid recommendations for a document',
      body: {
        document_id: 'cran-0012',
        strategy: 'hybrid',
        content_weight: 0.4,
        collab_weight: 0.3,
        graph_weight: 0.3,
        min_similarity: 0.7,
        limit: 10,
      },
      response: { status: 200, body: exampleRecommendationsResponse },
    },
  ],
  playground: {
    check: checkRecommendations,
    hints: {
      document_id: { placeholder: 'cran-0012 (or give user_id)' },
      user_id: { placeholder: 'Optional: recommend for this user' },
      vector_name: { placeholder: 'Optional: a vector of the collection, e.g. image' },
      vector: { kind: 'textarea', placeholder: 'Optional, with vector_name: [0.12, -0.03, 0.5]' },
      dataset_id: { placeholder: 'Optional: a primary table to draw from' },
      limit: { placeholder: 'Results to return, e.g. 10' },
      content_weight: { placeholder: '0.4 (hybrid: weights sum to 1)' },
      collab_weight: { placeholder: '0.3 (hybrid: weights sum to 1)' },
      graph_weight: { placeholder: '0.3 (hybrid: weights sum to 1)' },
      min_similarity: { placeholder: 'Content similarity 0 to 1, e.g. 0.7' },
      graph_depth: { placeholder: 'Hops for the graph strategy, e.g. 2' },
      edge_type: { placeholder: 'links_to' },
      primary_table: { placeholder: 'Optional: documents' },
      field_name: { placeholder: 'Optional: location' },
      strategy: { default: 'hybrid' },
      filters: { kind: 'textarea', placeholder: '[{"field": "tags", "operator": "contains", "value": "ann"}]' },
    },
  },
});
