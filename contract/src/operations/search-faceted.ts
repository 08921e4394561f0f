import { defineOperation } from '../define-operation.js';
import { FacetedSearchRequest, FacetedSearchResponse } from '../schemas/search.js';
import { exampleSearchResponse } from './search-example.js';

export const searchFaceted = defineOperation({
  id: 'search-faceted',
  name: 'Faceted Search',
  category: 'search',
  summary: 'Results with counts per facet value',
  description:
    'Counts per value of each facet (tags, categories or metadata.<key>) over the matching documents, with the top results. The query matches any of its words and results are scored as a text search with query_type match scores them (BM25, the same scale; see Text Search); without a query every readable document matches, scored 1.',
  http: { method: 'POST', path: '/api/v1/search/faceted', aliases: ['/search/faceted'] },
  access: 'user',
  body: FacetedSearchRequest,
  success: { status: 200, schema: FacetedSearchResponse, description: 'Ranked results.' },
  errors: ['INVALID_FILTERS_JSON'],
  examples: [
    {
      summary: 'Results with counts per facet value',
      body: { query: 'wing', facets: ['tags', 'categories'], limit: 10 },
      response: {
        status: 200,
        body: {
          ...exampleSearchResponse,
          facets: { tags: [{ value: 'aerodynamics', count: 12 }], categories: [{ value: 'wings', count: 7 }] },
        },
      },
    },
  ],
  playground: {
    hints: {
      primary_table: { placeholder: 'Optional: documents' },
      query: { placeholder: 'wing' },
      facets: { placeholder: 'tags,categories,metadata.author' },
    },
  },
});
