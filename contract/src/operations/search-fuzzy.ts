import { defineOperation } from '../define-operation.js';
import { clientMessages } from '../errors.js';
import { checkFuzziness } from '../playground-checks.js';
import { FuzzySearchRequest, SearchResponse } from '../schemas/search.js';
import { exampleFuzzyResponse } from './search-example.js';

export const searchFuzzy = defineOperation({
  id: 'search-fuzzy',
  name: 'Fuzzy Search',
  category: 'search',
  summary: 'Typo-tolerant search',
  description:
    'Matches terms within `fuzziness` edits (0, 1 or 2; default 1); the first `prefix_length` characters must match exactly.',
  http: { method: 'POST', path: '/api/v1/search/fuzzy', aliases: ['/search/fuzzy'] },
  access: 'user',
  body: FuzzySearchRequest,
  success: { status: 200, schema: SearchResponse, description: 'Ranked results.' },
  errors: ['QUERY_REQUIRED'],
  examples: [
    {
      summary: 'Typo-tolerant search',
      body: { query: 'boundery layr', fuzziness: 2, limit: 10 },
      response: { status: 200, body: exampleFuzzyResponse },
    },
  ],
  playground: {
    check: checkFuzziness,
    hints: {
      fuzziness: { placeholder: 'Edits allowed per word: 0, 1 or 2' },
      prefix_length: { placeholder: 'Leading characters that must match, e.g. 1' },
      primary_table: { placeholder: 'Optional: documents' },
      query: { placeholder: 'boundery layr', required: true, requiredMessage: clientMessages.queryRequired },
    },
  },
});
