import { defineOperation } from '../define-operation.js';
import { QueryRequest, QueryResponse } from '../schemas/query.js';

const pipelineExample = {
  primary_table: 'papers',
  prefetch: [
    { kind: 'text', query: 'shock wave boundary layer interaction', limit: 50 },
    { kind: 'dense', vector_name: 'abstract', query: 'shock wave boundary layer interaction', limit: 50 },
  ],
  fusion: { method: 'rrf', k: 60 },
  formula: {
    terms: [
      { weight: 1, value: '$score' },
      { weight: 0.01, decay: { function: 'exp', field: 'created_at', scale: 31_536_000, decay: 0.5 } },
    ],
  },
  limit: 10,
} as const;

export const searchQuery = defineOperation({
  id: 'search-query',
  name: 'Query Pipeline',
  category: 'search',
  summary: 'Candidate stages fused, rescored, boosted, diversified and grouped in one request',
  description:
    'Runs each `prefetch` stage (text, a dense vector, a sparse vector ranked by exact dot product, a multi-vector by MaxSim, a filter, or a nested pipeline), each with its own limit and filters, under your access and the request’s filters; fuses their candidates (`fusion`: rrf, dbsf or weighted) or rescores them by another vector (`rescore`, with `multi_vector` for exact MaxSim); reranks the best of them with a cross-encoder (`rerank`); then applies a `formula` (linear terms over the score and fields, exp/gauss/linear decay of a date or a distance), `mmr` diversity and `group_by`, and answers offset to offset + limit. Several stages without fusion or rescore are fused by rrf. `explain` answers every stage’s documents and scores.',
  http: { method: 'POST', path: '/api/v1/search/query', aliases: ['/search/query'] },
  access: 'user',
  grpc: { service: 'SearchService', method: 'Query' },
  body: QueryRequest,
  success: { status: 200, schema: QueryResponse, description: 'Ranked results (and groups, with group_by).' },
  errors: [
    'QUERY_REQUIRED',
    'INVALID_VECTOR_FORMAT',
    'INVALID_FILTERS_JSON',
    'NOT_FOUND',
    'NOT_IMPLEMENTED',
    'RERANK_MODEL_NOT_AVAILABLE',
    'RERANKER_FAILED',
    'RERANKER_UNAVAILABLE',
    'SHUTTING_DOWN',
    'INDEX_LOADING',
  ],
  examples: [
    {
      summary: 'Text and a collection vector fused by RRF, boosted by recency',
      body: pipelineExample,
      response: {
        status: 200,
        body: {
          results: [
            {
              document_id: 'cran-0012',
              title: 'boundary layer transition on a flat plate',
              chunks: [],
              metadata: { author: 'smith, j.' },
              score: 0.0328,
            },
          ],
          total_hits: 1,
          time_taken: 4.2,
        },
      },
    },
  ],
  playground: {
    hints: {
      primary_table: { placeholder: 'Optional: the collection, e.g. papers' },
      filters: { kind: 'textarea', placeholder: '[{"field": "tags", "operator": "in", "value": ["ann"]}]' },
      prefetch: {
        kind: 'textarea',
        placeholder: '[{"kind": "text", "query": "shock wave"}, {"kind": "dense", "query": "shock wave"}]',
      },
      fusion: { kind: 'textarea', placeholder: '{"method": "rrf", "k": 60}' },
      rescore: { kind: 'textarea', placeholder: 'Optional: {"vector_name": "abstract", "vector": [0.1, …]}' },
      formula: {
        kind: 'textarea',
        placeholder: '{"terms": [{"value": "$score"}, {"weight": 0.1, "value": "metadata.popularity"}]}',
      },
      rerank: { kind: 'textarea', placeholder: 'Optional: {"model": "bge-reranker-base", "candidates": 50}' },
      mmr: { kind: 'textarea', placeholder: 'Optional: {"lambda": 0.5, "vector_name": "abstract"}' },
      group_by: { kind: 'textarea', placeholder: 'Optional: {"field": "metadata.author", "group_size": 2}' },
      with_vectors: { placeholder: 'Optional: true, or ["abstract"]' },
      with_fields: { placeholder: 'Optional: true, or ["tags"]' },
    },
  },
});
