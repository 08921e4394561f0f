import { defineOperation } from '../define-operation.js';
import { clientMessages } from '../errors.js';
import { SearchResponse, TextSearchRequest } from '../schemas/search.js';
import { exampleSearchResponse } from './search-example.js';

export const searchText = defineOperation({
  id: 'search-text',
  name: 'Text Search',
  category: 'search',
  summary: 'Full-text search with BM25',
  description:
    'Finds documents by their words: query_type match (any term), phrase (default: the words in order) or wildcard (* and ?). Ranked by BM25; chunk-level hits name the matching chunk. Optional geo filter (lat, lon, radius in km, field_name, require_geo) and filters. Scores are BM25 as SQLite FTS5 computes it (k1 1.2, b 0.75, a title word counts twice), on one scale for match, phrase and wildcard (a phrase counts as one term); a document split into chunks is scored as a whole, its chunks each by their own words. The idf of a word or phrase is log((N − n + 0.5) / (n + 0.5)) over the N public documents, n of which hold it, and 0.000001 when that is not positive: a word or phrase that half the documents or more hold adds almost nothing, so over a handful of documents scores such as 0.000002 are expected; they still order the results.',
  http: { method: 'POST', path: '/api/v1/search/text', aliases: ['/search/text'] },
  access: 'user',
  grpc: { service: 'SearchService', method: 'TextSearch' },
  body: TextSearchRequest,
  success: { status: 200, schema: SearchResponse, description: 'Ranked results.' },
  errors: ['QUERY_REQUIRED', 'INVALID_FILTERS_JSON'],
  examples: [
    {
      summary: 'Full-text search with BM25',
      body: { query: 'boundary layer', query_type: 'match', limit: 10 },
      response: { status: 200, body: exampleSearchResponse },
    },
  ],
  playground: {
    hints: {
      primary_table: { placeholder: 'Optional: documents' },
      chunk_size: { placeholder: 'Characters per chunk, e.g. 1024' },
      chunk_overlap: { placeholder: 'Characters shared by neighbouring chunks, e.g. 200' },
      query: { placeholder: 'boundary layer', required: true, requiredMessage: clientMessages.queryRequired },
      filters: { kind: 'textarea', placeholder: '[{"field": "tags", "operator": "contains", "value": "ann"}]' },
    },
  },
});
