import { Type, type Static } from '@sinclair/typebox';

/** The specification's default model name (a bring-your-own local model; see the embeddings docs). */
export const specDefaultModel = 'mxbai-embed-large-v1';
export const quantizationMethods = ['linear', 'kmeans', 'binary'] as const;
export const bitWidths = [4, 8, 16] as const;
export const chunkStrategies = ['token', 'sentence', 'paragraph'] as const;

export const QuantizationOptions = Type.Object(
  {
    enabled: Type.Boolean({ default: false }),
    method: Type.Union(
      quantizationMethods.map((m) => Type.Literal(m)),
      { default: 'kmeans' },
    ),
    bit_width: Type.Union(
      bitWidths.map((b) => Type.Literal(b)),
      { default: 8 },
    ),
    kmeans_clusters: Type.Integer({ minimum: 2, maximum: 65536, default: 256 }),
  },
  { additionalProperties: false },
);

export const PreprocessingOptions = Type.Object(
  {
    normalize: Type.Boolean({ default: true }),
    max_tokens: Type.Integer({ minimum: 8, maximum: 8192, default: 512 }),
    overlap: Type.Integer({ minimum: 0, maximum: 4096, default: 50 }),
    strategy: Type.Union(
      chunkStrategies.map((s) => Type.Literal(s)),
      { default: 'token' },
    ),
  },
  { additionalProperties: false },
);

export const EmbeddingOptions = Type.Object(
  {
    model: Type.Optional(Type.String({ description: 'Model name; defaults to the server’s default model.' })),
    model_name: Type.Optional(Type.String({ description: 'Alias of `model`, as the playground sends it.' })),
    quantization: Type.Optional(Type.Partial(QuantizationOptions)),
    preprocessing: Type.Optional(Type.Partial(PreprocessingOptions)),
  },
  { additionalProperties: false },
);
export type EmbeddingOptions = Static<typeof EmbeddingOptions>;

export const EmbeddingModel = Type.Object({
  name: Type.String(),
  provider: Type.String(),
  dimensions: Type.Integer(),
  default: Type.Boolean(),
  description: Type.String(),
});

export const ModelList = Type.Object({
  models: Type.Array(Type.String(), { description: 'Names of the models usable on this server.' }),
  default_model: Type.String(),
  details: Type.Array(EmbeddingModel),
});

export const EmbeddingRequest = Type.Object(
  {
    model_name: Type.Optional(Type.String({ description: 'Defaults to the server’s default model.' })),
    text: Type.String({ description: 'The text to embed.' }),
    original_text: Type.Optional(Type.String({ description: 'Optional second text embedded alongside.' })),
    embedding_options: Type.Optional(EmbeddingOptions),
  },
  { additionalProperties: false },
);

export const EmbeddingResponse = Type.Object({
  content_embedding: Type.Array(Type.Number()),
  original_text_embedding: Type.Optional(Type.Array(Type.Number())),
  model_name: Type.String(),
  token_count: Type.Integer(),
  dimensions: Type.Integer(),
  processing_time_ms: Type.Number(),
});

export const QuantizedEmbeddingRequest = Type.Object(
  {
    model_name: Type.Optional(Type.String()),
    text: Type.String(),
    original_text: Type.Optional(Type.String()),
    method: Type.Union(
      quantizationMethods.map((m) => Type.Literal(m)),
      { default: 'kmeans' },
    ),
    bit_width: Type.Union(
      bitWidths.map((b) => Type.Literal(b)),
      { default: 8 },
    ),
    kmeans_clusters: Type.Optional(Type.Integer({ minimum: 2, maximum: 65536, default: 256 })),
  },
  { additionalProperties: false },
);

export const QuantizedEmbeddingResponse = Type.Composite([
  EmbeddingResponse,
  Type.Object({
    quantized_vector: Type.Array(Type.Integer()),
    quantization_info: Type.Object({
      method: Type.String(),
      bit_width: Type.Integer(),
      min_val: Type.Number(),
      max_val: Type.Number(),
    }),
    compression_ratio: Type.Number(),
    reconstruction_error: Type.Number({ description: 'Root-mean-square error of dequantize(quantize(v)) vs v.' }),
  }),
]);
