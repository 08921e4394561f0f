import { defineOperation } from '../define-operation.js';
import { DeleteDocumentsRequest, DeleteDocumentsResponse } from '../schemas/document-scan.js';

export const deleteDocuments = defineOperation({
  id: 'delete-documents',
  name: 'Delete Documents by Filter',
  category: 'documents',
  summary: 'Delete the documents of a collection matching a filter',
  description:
    'Deletes the live documents of a collection that match `filter` and that you own (the owner role, as for a single delete); matching documents you may read but not delete are counted in `skipped` and left in place, and documents you cannot read are never touched. `permanent` purges them from the store and every index. To empty a whole collection, tenant admins delete the collection.',
  http: { method: 'POST', path: '/api/v1/documents/delete', aliases: ['/documents/delete'] },
  access: 'user',
  body: DeleteDocumentsRequest,
  success: { status: 200, schema: DeleteDocumentsResponse, description: 'What was deleted.' },
  errors: ['INVALID_FILTERS_JSON'],
  examples: [
    {
      summary: 'Delete discontinued products',
      body: {
        primary_table: 'products',
        filter: { must: [{ field: 'tags', operator: 'in', value: ['discontinued'] }] },
      },
      response: { status: 200, body: { success: true, deleted: 3, skipped: 0 } },
    },
  ],
  playground: {
    hints: {
      primary_table: { placeholder: 'products' },
      filter: { kind: 'textarea', placeholder: '{"must": [{"field": "tags", "operator": "in", "value": ["old"]}]}' },
    },
  },
});
