import { defineOperation } from '../define-operation.js';
import { MultiTableSearchRequest, SearchResponse } from '../schemas/search.js';
import { exampleMultiTableResponse } from './search-example.js';

export const searchMultiTable = defineOperation({
  id: 'search-multi-table',
  name: 'Multi-Table Search',
  category: 'search',
  summary: 'Search across primary tables with joins',
  description:
    'Searches the documents of several primary tables and joins them by join_conditions: a list of {left_table, left_field, operator, right_table, right_field}.',
  http: { method: 'POST', path: '/api/v1/search/multi-table', aliases: ['/search/multi-table'] },
  access: 'user',
  body: MultiTableSearchRequest,
  success: { status: 200, schema: SearchResponse, description: 'Ranked results.' },
  errors: ['INVALID_FILTERS_JSON'],
  examples: [
    {
      summary: 'Search across primary tables with joins',
      body: {
        table_names: ['papers', 'authors'],
        join_conditions: [
          {
            left_table: 'papers',
            left_field: 'metadata.author_id',
            operator: 'eq',
            right_table: 'authors',
            right_field: 'id',
          },
        ],
        limit: 10,
      },
      response: { status: 200, body: exampleMultiTableResponse },
    },
  ],
  playground: {
    hints: {
      query: { placeholder: 'Optional: boundary layer' },
      table_names: { placeholder: 'papers,authors' },
      join_conditions: {
        kind: 'textarea',
        placeholder:
          '[{"left_table": "papers", "left_field": "metadata.author_id", "operator": "eq", "right_table": "authors", "right_field": "id"}]',
      },
    },
  },
});
