import { defineOperation } from '../define-operation.js';
import { Collection, CreateCollectionRequest } from '../schemas/collection.js';

export const createCollection = defineOperation({
  id: 'create-collection',
  name: 'Create Collection',
  category: 'collections',
  summary: 'Declare a collection and its vectors',
  description:
    'A collection holds the documents that name it in `primary_table`. Declare its vectors: each has `dimensions`, a `distance` (cosine, euclidean or dot), a `storage` kind for its HNSW index (f32, f16 — the default —, i8 or b1; scores stay exact, candidates are rescored from float32) and optional `hnsw` parameters; give `model` to have GoDB fill it from the text instead of giving vectors yourself. Documents then carry `vector` (the default vector) or `vectors: {<name>: [...]}`. A document naming a collection that does not exist creates it implicitly, as before. Declare `indexes` on fields that filters use (`{"metadata.tag": "keyword", "metadata.price": "float"}`): a filtered search whose conditions are all on indexed fields then learns the documents it allows from the indexes instead of reading every document, and a document whose value has another type than declared is refused (400 naming the field). `analysis` sets how its text searches read a query: `language` (the stemmer when a search gives no `lang`; documents are stemmed by their own lang_code), `stop_words` (a named list such as "english", or your own words) and `synonyms` (groups of words that match each other); all apply at query time, so changing them rebuilds nothing.',
  http: { method: 'POST', path: '/api/v1/collections', aliases: ['/collections'] },
  access: 'user',
  body: CreateCollectionRequest,
  success: { status: 201, schema: Collection, description: 'The collection with its settings, defaults filled in.' },
  errors: ['COLLECTION_EXISTS', 'MODEL_NOT_AVAILABLE'],
  examples: [
    {
      summary: 'Products with an image vector you compute and a text vector GoDB computes',
      body: {
        name: 'products',
        description: 'Catalogue items',
        vectors: {
          image: { dimensions: 4, distance: 'cosine', storage: 'f16' },
          text: { model: 'use-lite-512' },
        },
        default_vector: 'image',
        indexes: { 'metadata.tag': 'keyword', 'metadata.price': 'float' },
      },
      response: {
        status: 201,
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
            text: {
              dimensions: 512,
              distance: 'cosine',
              storage: 'f16',
              hnsw: { m: 16, ef_construction: 200, ef_search: 100 },
              model: 'use-lite-512',
            },
          },
          default_vector: 'image',
          implicit: false,
          indexes: { 'metadata.tag': 'keyword', 'metadata.price': 'float' },
          created_at: 1767225600,
          updated_at: 1767225600,
        },
      },
    },
  ],
  playground: {
    hints: {
      name: { placeholder: 'products' },
      description: { placeholder: 'What the collection holds' },
      vectors: {
        kind: 'textarea',
        placeholder: '{"image": {"dimensions": 512, "distance": "cosine", "storage": "f16"}}',
      },
      default_vector: { placeholder: 'image' },
      indexes: { kind: 'textarea', placeholder: '{"metadata.tag": "keyword", "metadata.price": "float"}' },
      analysis: {
        kind: 'textarea',
        placeholder: '{"language": "de", "stop_words": "german", "synonyms": [["auto", "wagen"]]}',
      },
    },
  },
});
