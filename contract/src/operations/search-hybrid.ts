import { defineOperation } from '../define-operation.js';
import { HybridSearchRequest, SearchResponse } from '../schemas/search.js';
import { exampleHybridResponse } from './search-example.js';

export const searchHybrid = defineOperation({
  id: 'search-hybrid',
  name: 'Hybrid Search',
  category: 'search',
  summary: 'Text and vector search fused',
  description:
    'Fetches twice the limit from each side and fuses them: score = alpha × vector + (1 − alpha) × text, each side normalised by `fusion` (dbsf_relative by default: mean ± 3 standard deviations, the deviation at least a sixth of the mean for a side of three documents or more; dbsf: mean ± 3 standard deviations; weighted: min-max; rrf: 1 / (60 + rank)). use_ml_ranking re-ranks with a model learned from your tenant’s engagement.',
  http: { method: 'POST', path: '/api/v1/search/hybrid', aliases: ['/search/hybrid'] },
  access: 'user',
  grpc: { service: 'SearchService', method: 'HybridSearch' },
  body: HybridSearchRequest,
  success: { status: 200, schema: SearchResponse, description: 'Ranked results.' },
  errors: ['QUERY_REQUIRED', 'INVALID_VECTOR_FORMAT', 'NOT_FOUND', 'SHUTTING_DOWN', 'INDEX_LOADING'],
  examples: [
    {
      summary: 'Text and vector search fused',
      body: { query: 'shock wave boundary layer interaction', alpha: 0.5, limit: 10 },
      response: { status: 200, body: exampleHybridResponse },
    },
  ],
  playground: {
    hints: {
      model_name: { placeholder: 'Optional: the ranking model, with use_ml_ranking' },
      fusion: { placeholder: 'Choose dbsf_relative (the default), dbsf, weighted or rrf' },
      primary_table: { placeholder: 'Optional: documents' },
      vector_name: { placeholder: 'Optional: a vector of the collection, e.g. image' },
      query: { placeholder: 'shock wave boundary layer interaction' },
      vector: { kind: 'textarea', placeholder: '[0.12, -0.03, …] (optional)' },
      filters: { kind: 'textarea', placeholder: '[{"field": "tags", "operator": "in", "value": ["ann"]}]' },
    },
  },
});
