import { defineOperation } from '../define-operation.js';
import { EmbeddingRequest, EmbeddingResponse } from '../schemas/embedding.js';

export const createEmbedding = defineOperation({
  id: 'create-embedding',
  name: 'Generate Embedding',
  category: 'embeddings',
  summary: 'Embed a text',
  description:
    'Embeds `text` (and `original_text` when given) with `model_name`. Long texts are split into windows of `max_tokens` with `overlap` and mean-pooled.',
  http: { method: 'POST', path: '/api/v1/embeddings', aliases: ['/embeddings'] },
  access: 'user',
  body: EmbeddingRequest,
  success: { status: 200, schema: EmbeddingResponse, description: 'The embedding.' },
  errors: [
    'MODEL_NOT_AVAILABLE',
    'EMPTY_TEXT',
    'MODEL_LOAD_FAILED',
    'MODEL_LOADING',
    'EMBEDDING_QUEUE_FULL',
    'EMBEDDING_PROVIDER_FAILED',
  ],
  examples: [
    {
      summary: 'Embed a sentence',
      body: { model_name: 'glove-100', text: 'vector search with graphs' },
      response: {
        status: 200,
        body: {
          content_embedding: [0.012, -0.087, 0.143],
          model_name: 'glove-100',
          token_count: 4,
          dimensions: 100,
          processing_time_ms: 0.6,
        },
      },
    },
  ],
  playground: {
    hidden: ['embedding_options'],
    hints: {
      text: { kind: 'textarea', placeholder: 'Text to embed' },
      original_text: { kind: 'textarea', placeholder: 'Optional second text' },
    },
  },
});
