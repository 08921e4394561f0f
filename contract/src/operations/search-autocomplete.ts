import { defineOperation } from '../define-operation.js';
import { checkFuzziness } from '../playground-checks.js';
import { AutocompleteRequest, AutocompleteResponse } from '../schemas/search.js';

export const searchAutocomplete = defineOperation({
  id: 'search-autocomplete',
  name: 'Autocomplete',
  category: 'search',
  summary: 'Completions for a prefix',
  description:
    'Suggestions that start with `prefix` (within `fuzziness` edits: 0, 1 or 2; default 0) in `field`, ranked by how often they occur and how much their documents are engaged with.',
  http: { method: 'POST', path: '/api/v1/search/autocomplete', aliases: ['/search/autocomplete'] },
  access: 'user',
  body: AutocompleteRequest,
  success: { status: 200, schema: AutocompleteResponse, description: 'Suggestions, best first.' },
  errors: [],
  examples: [
    {
      summary: 'Complete "bound"',
      body: { prefix: 'bound', limit: 5, field: 'title', fuzziness: 0 },
      response: {
        status: 200,
        body: {
          suggestions: [
            { text: 'boundary', score: 0.92, count: 211 },
            { text: 'boundary layer', score: 0.88, count: 174 },
          ],
          time_taken: 0.3,
        },
      },
    },
  ],
  playground: {
    check: checkFuzziness,
    hints: { fuzziness: { placeholder: 'Edits allowed: 0, 1 or 2' }, prefix: { placeholder: 'bound' } },
  },
});
