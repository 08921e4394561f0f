import { defineOperation } from '../define-operation.js';
import { PathId, SuccessMessage } from '../schemas/common.js';
import { DeleteDocumentQuery } from '../schemas/document.js';

export const deleteDocument = defineOperation({
  id: 'delete-document',
  name: 'Delete Document',
  category: 'documents',
  summary: 'Hide or permanently delete a document',
  description:
    'Needs the owner role. Without `permanent` the document is hidden from every read and search; with it, it is removed from the store and every index. `recursive` also deletes child documents and chunks.',
  http: { method: 'DELETE', path: '/api/v1/documents/{id}', aliases: ['/documents/{id}'] },
  access: 'user',
  params: PathId,
  query: DeleteDocumentQuery,
  success: { status: 200, schema: SuccessMessage, description: 'The document was deleted.' },
  errors: ['NOT_FOUND', 'ACCESS_CHANGED'],
  examples: [
    {
      summary: 'Delete with its chunks',
      params: { id: 'doc-hnsw-101' },
      query: { recursive: true, permanent: true },
      response: { status: 200, body: { success: true, message: 'Document doc-hnsw-101 deleted permanently' } },
    },
  ],
});
