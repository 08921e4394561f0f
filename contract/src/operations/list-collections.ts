import { Type } from '@sinclair/typebox';
import { defineOperation } from '../define-operation.js';
import { Collection } from '../schemas/collection.js';

export const listCollections = defineOperation({
  id: 'list-collections',
  name: 'List Collections',
  category: 'collections',
  summary: 'The collections of your tenant',
  description:
    'Every collection of your tenant with its settings, those you created and those documents created implicitly by naming them in `primary_table`.',
  http: { method: 'GET', path: '/api/v1/collections', aliases: ['/collections'] },
  access: 'user',
  success: {
    status: 200,
    schema: Type.Object({ collections: Type.Array(Collection) }),
    description: 'The collections, by name.',
  },
  errors: [],
  examples: [
    {
      summary: 'One implicit collection',
      response: {
        status: 200,
        body: {
          collections: [
            {
              name: 'documents',
              description: '',
              vectors: {
                'use-lite-512': {
                  dimensions: 512,
                  distance: 'cosine',
                  storage: 'f16',
                  hnsw: { m: 16, ef_construction: 200, ef_search: 100 },
                  model: 'use-lite-512',
                },
              },
              default_vector: 'use-lite-512',
              implicit: true,
              created_at: 1767225600,
              updated_at: 1767225600,
            },
          ],
        },
      },
    },
  ],
});
