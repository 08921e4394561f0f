import { defineOperation } from '../define-operation.js';
import { checkVectorSearch } from '../playground-checks.js';
import { VectorSearchRequest, SearchResponse } from '../schemas/search.js';
import { exampleVectorResponse } from './search-example.js';

export const searchVector = defineOperation({
  id: 'search-vector',
  name: 'Vector Search',
  category: 'search',
  summary: 'Nearest neighbours by embedding (HNSW)',
  description:
    'Give `query` (embedded with embedding_options’ model) or `vector`. similarity_method cosine (default), euclidean or dot; results below `threshold` (0 to 1, default 0.7) are dropped, compared with the `score` each result carries: the model’s calibrated relevance for use-lite-512 and glove-100 (the method’s raw number beside it as `similarity`), the similarity itself otherwise. Optional center {lat, lon} + radius (km) and combine_location_score. Filters on fields a collection indexes (POST /api/v1/collections `indexes`) are answered from the indexes; `explain: true` answers the `plan` (index or scan, allowed documents, exact or HNSW).',
  http: { method: 'POST', path: '/api/v1/search/vector', aliases: ['/search/vector'] },
  access: 'user',
  grpc: { service: 'SearchService', method: 'VectorSearch' },
  body: VectorSearchRequest,
  success: { status: 200, schema: SearchResponse, description: 'Ranked results.' },
  errors: [
    'THRESHOLD_OUT_OF_RANGE',
    'INVALID_VECTOR_FORMAT',
    'NOT_FOUND',
    'INVALID_FILTERS_JSON',
    'SHUTTING_DOWN',
    'INDEX_LOADING',
    'SEARCH_WORKER_FAILED',
  ],
  examples: [
    {
      summary: 'Nearest neighbours by embedding (HNSW)',
      body: { query: 'heat transfer in hypersonic flow', similarity_method: 'cosine', threshold: 0.3, limit: 10 },
      response: { status: 200, body: exampleVectorResponse },
    },
  ],
  playground: {
    check: checkVectorSearch,
    hints: {
      vector_type: { placeholder: 'text' },
      threshold: { placeholder: 'Relevance 0 to 1, e.g. 0.7' },
      primary_table: { placeholder: 'Optional: documents' },
      vector_name: { placeholder: 'Optional: a vector of the collection, e.g. image' },
      query: { placeholder: 'heat transfer in hypersonic flow' },
      vector: { kind: 'textarea', placeholder: '[0.12, -0.03, …] (optional instead of query)' },
      embedding_options: { kind: 'textarea', placeholder: '{"model_name": "use-lite-512"}' },
      center: { kind: 'textarea', placeholder: '{"lat": 52.52, "lon": 13.405}' },
      filters: { kind: 'textarea', placeholder: '[{"field": "metadata.year", "operator": "gte", "value": 2020}]' },
    },
  },
});
