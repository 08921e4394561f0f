import { defineOperation } from '../define-operation.js';
import { CollectionInfo, CollectionParams } from '../schemas/collection.js';

export const getCollection = defineOperation({
  id: 'get-collection',
  name: 'Get Collection',
  category: 'collections',
  summary: 'Settings and counts of a collection',
  description:
    'The settings, the documents and chunks you may read, each declared field index (building with its progress, ready or failed; its documents and entries), and for tenant admins each vector’s index: live vectors, whether it is in memory, bytes per vector for its storage kind, memory and disk.',
  http: { method: 'GET', path: '/api/v1/collections/{name}', aliases: ['/collections/{name}'] },
  access: 'user',
  params: CollectionParams,
  success: { status: 200, schema: CollectionInfo, description: 'The collection.' },
  errors: ['NOT_FOUND'],
  examples: [
    {
      summary: 'A collection with one vector of its own',
      params: { name: 'products' },
      response: {
        status: 200,
        body: {
          name: 'products',
          description: 'Catalogue items',
          vectors: {
            image: {
              dimensions: 4,
              distance: 'cosine',
              storage: 'f16',
              hnsw: { m: 16, ef_construction: 200, ef_search: 100 },
            },
          },
          default_vector: 'image',
          implicit: false,
          indexes: { 'metadata.tag': 'keyword' },
          created_at: 1767225600,
          updated_at: 1767225600,
          documents: 2,
          chunks: 2,
          field_indexes: {
            'metadata.tag': { kind: 'keyword', state: 'ready', progress: 1, documents: 2, postings: 3 },
          },
          vector_stats: {
            image: {
              vectors: 2,
              indexed: 2,
              index: 'ready',
              bytes_per_vector: 273,
              memory_bytes: 4642,
              index_bytes: 546,
              copies_bytes: 4096,
              disk_bytes: 32,
            },
          },
        },
      },
    },
  ],
});
