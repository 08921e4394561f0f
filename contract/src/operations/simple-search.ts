import { defineOperation } from '../define-operation.js';
import { clientMessages } from '../errors.js';
import { SearchResponse, SimpleSearchQuery } from '../schemas/search.js';

export const simpleSearch = defineOperation({
  id: 'simple-search',
  name: 'Search',
  category: 'search',
  summary: 'The search box: one query string',
  description: 'A GET form of text search (match semantics, BM25) for search boxes and links.',
  http: { method: 'GET', path: '/api/v1/search', aliases: ['/search'] },
  access: 'user',
  query: SimpleSearchQuery,
  success: { status: 200, schema: SearchResponse, description: 'Ranked results.' },
  errors: ['QUERY_REQUIRED'],
  examples: [
    {
      summary: 'Search for boundary layers',
      query: { query: 'boundary layer', limit: 10 },
      response: { status: 200, body: { results: [], total_hits: 0, time_taken: 0.4 } },
    },
  ],
  playground: {
    hints: {
      query: {
        placeholder: 'boundary layer transition',
        required: true,
        requiredMessage: clientMessages.queryRequired,
      },
    },
  },
});
