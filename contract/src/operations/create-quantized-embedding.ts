import { defineOperation } from '../define-operation.js';
import { QuantizedEmbeddingRequest, QuantizedEmbeddingResponse } from '../schemas/embedding.js';

export const createQuantizedEmbedding = defineOperation({
  id: 'create-quantized-embedding',
  name: 'Generate Quantized Embedding',
  category: 'embeddings',
  summary: 'Embed a text and quantize the vector',
  description:
    'Method linear: uniform levels over [min, max]; method kmeans: a codebook of at most min(kmeans_clusters, 2^bit_width) centroids; method binary: one sign bit per dimension. Answers the codes, the parameters to dequantize, the compression ratio against float32 and the reconstruction error.',
  http: { method: 'POST', path: '/api/v1/embeddings/quantized', aliases: ['/embeddings/quantized'] },
  access: 'user',
  body: QuantizedEmbeddingRequest,
  success: { status: 200, schema: QuantizedEmbeddingResponse, description: 'The quantized embedding.' },
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
      summary: '8-bit linear',
      body: { model_name: 'glove-100', text: 'vector search', method: 'linear', bit_width: 8 },
      response: {
        status: 200,
        body: {
          content_embedding: [0.012, -0.087, 0.143],
          model_name: 'glove-100',
          token_count: 2,
          dimensions: 100,
          processing_time_ms: 0.7,
          quantized_vector: [121, 77, 255],
          quantization_info: { method: 'linear', bit_width: 8, min_val: -0.087, max_val: 0.143 },
          compression_ratio: 4,
          overhead_bytes: 8,
          reconstruction_error: 0.0004,
        },
      },
    },
  ],
  playground: {
    hints: {
      model_name: { placeholder: 'use-lite-512 (see the models list)' },
      original_text: { placeholder: 'Optional: text stored with the codes' },
      kmeans_clusters: { placeholder: 'Centroids for kmeans, e.g. 256' },
      text: { kind: 'textarea', placeholder: 'Text to embed' },
    },
  },
});
