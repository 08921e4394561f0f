import { Type } from '@sinclair/typebox';
import { defineOperation } from '../define-operation.js';
import { CollectionParams } from '../schemas/collection.js';

export const deleteCollection = defineOperation({
  id: 'delete-collection',
  name: 'Delete Collection',
  category: 'collections',
  summary: 'Delete a collection, its documents and indexes',
  description:
    'Tenant admins only. Removes every document of the collection (all versions, permanently, with their files) and its vector indexes.',
  http: { method: 'DELETE', path: '/api/v1/collections/{name}', aliases: ['/collections/{name}'] },
  access: 'admin',
  params: CollectionParams,
  success: {
    status: 200,
    schema: Type.Object({ success: Type.Literal(true), deleted_documents: Type.Integer() }),
    description: 'The collection is gone.',
  },
  errors: ['NOT_FOUND'],
  examples: [
    {
      summary: 'Delete a collection',
      params: { name: 'products' },
      response: { status: 200, body: { success: true, deleted_documents: 2 } },
    },
  ],
});
