import { Type } from '@sinclair/typebox';
import { defineOperation } from '../define-operation.js';
import { PathId, SuccessMessage } from '../schemas/common.js';

export const setVisibility = defineOperation({
  id: 'set-visibility',
  name: 'Set Visibility',
  category: 'documents',
  summary: 'Make a document public, private or shared',
  description:
    'Needs the edit or owner role on the document. public: everyone in the tenant; private: owner and ACL entries; shared: access_list and ACL.',
  http: { method: 'PUT', path: '/api/v1/documents/{id}/visibility', aliases: ['/documents/{id}/visibility'] },
  access: 'user',
  params: PathId,
  body: Type.Object(
    { visibility: Type.String({ maxLength: 64, description: 'Who may read it: public, private or shared.' }) },
    { additionalProperties: false },
  ),
  success: { status: 200, schema: SuccessMessage, description: 'The visibility was changed.' },
  errors: ['NOT_FOUND', 'INVALID_VISIBILITY', 'ACCESS_CHANGED'],
  examples: [
    {
      summary: 'Make private',
      params: { id: 'doc-hnsw-101' },
      body: { visibility: 'private' },
      response: { status: 200, body: { success: true, message: 'Visibility set to private' } },
    },
  ],
  playground: {
    hints: { visibility: { kind: 'select', options: ['public', 'private', 'shared'], default: 'public' } },
  },
});
