import { defineOperation } from '../define-operation.js';
import { Collection, CollectionParams, UpdateCollectionRequest } from '../schemas/collection.js';

export const updateCollection = defineOperation({
  id: 'update-collection',
  name: 'Update Collection',
  category: 'collections',
  summary: 'Change what needs no rebuild',
  description:
    'Changes the description, the default vector and each vector’s `hnsw.ef_search` (more candidates: better recall, slower queries). Sizes, distances and storage kinds are fixed when a vector is declared. `indexes` replaces the declared field indexes: a new one is built over the existing documents in the background (its state and progress in GET /collections/{name}; filters read the documents until it is ready), one left out is dropped. `analysis` replaces the collection’s analysis settings whole (`{}` removes them): applied from the next query, nothing is rebuilt.',
  http: { method: 'PATCH', path: '/api/v1/collections/{name}', aliases: ['/collections/{name}'] },
  access: 'admin',
  params: CollectionParams,
  body: UpdateCollectionRequest,
  success: { status: 200, schema: Collection, description: 'The collection as it is now.' },
  errors: ['NOT_FOUND'],
  examples: [
    {
      summary: 'Search more candidates',
      params: { name: 'products' },
      body: { vectors: { image: { hnsw: { ef_search: 200 } } } },
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
              hnsw: { m: 16, ef_construction: 200, ef_search: 200 },
            },
          },
          default_vector: 'image',
          implicit: false,
          created_at: 1767225600,
          updated_at: 1767225700,
        },
      },
    },
  ],
  playground: {
    hints: {
      description: { placeholder: 'What the collection holds' },
      default_vector: { placeholder: 'image' },
      vectors: { kind: 'textarea', placeholder: '{"image": {"hnsw": {"ef_search": 200}}}' },
      indexes: { kind: 'textarea', placeholder: '{"metadata.tag": "keyword", "created_at": "integer"}' },
      analysis: { kind: 'textarea', placeholder: '{"stop_words": "english", "synonyms": [["car", "automobile"]]}' },
    },
  },
});
