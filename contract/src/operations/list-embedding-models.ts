import { defineOperation } from '../define-operation.js';
import { ModelList } from '../schemas/embedding.js';

export const listEmbeddingModels = defineOperation({
  id: 'list-embedding-models',
  name: 'List Embedding Models',
  category: 'embeddings',
  summary: 'The embedding models usable on this server',
  description:
    'Only models that can really run here are listed, with their provider, dimensions and which one is the default.',
  http: { method: 'GET', path: '/api/v1/embeddings/models', aliases: ['/embeddings/models'] },
  access: 'user',
  success: { status: 200, schema: ModelList, description: 'The models.' },
  errors: [],
  examples: [
    {
      summary: 'Models',
      response: {
        status: 200,
        body: {
          models: ['use-lite-512', 'glove-100'],
          default_model: 'use-lite-512',
          details: [
            {
              name: 'use-lite-512',
              provider: 'local',
              dimensions: 512,
              default: true,
              description: 'Universal Sentence Encoder Lite',
            },
            {
              name: 'glove-100',
              provider: 'local',
              dimensions: 100,
              default: false,
              description: 'Averaged GloVe word vectors',
            },
          ],
          notes: [
            'The configured default model mxbai-embed-large-v1 is not installed (put its files in models/mxbai-embed-large-v1); use-lite-512 is the default.',
          ],
        },
      },
    },
  ],
});
