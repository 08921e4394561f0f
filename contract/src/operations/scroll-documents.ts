import { defineOperation } from '../define-operation.js';
import { ScrollDocumentsRequest, ScrollDocumentsResponse } from '../schemas/document-scan.js';

export const scrollDocuments = defineOperation({
  id: 'scroll-documents',
  name: 'Scroll Documents',
  category: 'documents',
  summary: 'Page through a collection with a stable cursor',
  description:
    'Pages through the live documents you may read in a collection, in id order, that match `filter`; pass `next_cursor` back as `cursor` for the next page. The cursor is stable while writes happen: a document is returned at most once (in its version current when its page is read), documents added behind the cursor are not. With `with_vectors`, each document carries its vectors: the way to export. A page may hold fewer than `limit` documents when the filter is selective; keep going while `next_cursor` is present.',
  http: { method: 'POST', path: '/api/v1/documents/scroll', aliases: ['/documents/scroll'] },
  access: 'user',
  body: ScrollDocumentsRequest,
  success: { status: 200, schema: ScrollDocumentsResponse, description: 'One page.' },
  errors: ['INVALID_FILTERS_JSON'],
  examples: [
    {
      summary: 'The first page of a collection, with vectors',
      body: { primary_table: 'products', limit: 1, with_vectors: true },
      response: {
        status: 200,
        body: {
          documents: [
            {
              id: 'red-shoe',
              tenant_id: 'acme',
              title: 'Red shoe',
              primary_table: 'products',
              visibility: 'public',
              lang_code: 'en',
              metadata: { price: 39 },
              vectors: { image: [0.9, 0.1, 0, 0.2] },
              is_chunk: false,
              is_parent: false,
              is_child: false,
              version: 1,
              needs_refresh: false,
              is_dirty: false,
            },
          ],
          next_cursor: 'cmVkLXNob2U',
        },
      },
    },
  ],
  playground: {
    hints: {
      primary_table: { placeholder: 'Optional: products' },
      filter: { kind: 'textarea', placeholder: '{"must": [{"field": "tags", "operator": "in", "value": ["sale"]}]}' },
      cursor: { placeholder: 'next_cursor of the previous page' },
      limit: { placeholder: 'Documents per page, e.g. 100' },
    },
  },
});
