import { defineOperation } from '../define-operation.js';
import { clientMessages } from '../errors.js';
import { SmartSearchRequest, SmartSearchResponse } from '../schemas/search.js';
import { exampleVectorResponse } from './search-example.js';

export const searchSmart = defineOperation({
  id: 'search-smart',
  name: 'Smart Search',
  category: 'search',
  summary: 'Routes the query to the best search kind',
  description:
    'Picks the search for the query: mode auto (default) chooses text, semantic or geo from the query and says which route it took and why; lat, lon, radius and field_name are used only when lat and lon are given. A query is required, as the playground marks it, with one exception: a geo search (mode geo, or lat and lon given and the router picks geo) finds what lies within radius of the point, and needs no words.',
  http: { method: 'POST', path: '/api/v1/search/smart', aliases: ['/search/smart'] },
  access: 'user',
  body: SmartSearchRequest,
  success: { status: 200, schema: SmartSearchResponse, description: 'Ranked results.' },
  errors: ['QUERY_REQUIRED', 'SHUTTING_DOWN', 'INDEX_LOADING'],
  examples: [
    {
      summary: 'Routes the query to the best search kind',
      body: { query: 'why does the boundary layer separate', mode: 'auto', limit: 10 },
      response: {
        status: 200,
        body: {
          ...exampleVectorResponse,
          route: 'semantic',
          reason: 'question-like query of 6 words: semantic search handles paraphrase better',
        },
      },
    },
  ],
  playground: {
    hints: {
      primary_table: { placeholder: 'Optional: documents' },
      query: {
        placeholder: 'why does the boundary layer separate',
        required: true,
        requiredMessage: clientMessages.queryRequired,
      },
    },
  },
});
