import { Type, type Static } from '@sinclair/typebox';
import { Enum, Name } from './common.js';

/** The specification's default model name (a bring-your-own local model; see the embeddings docs). */
export const specDefaultModel = 'mxbai-embed-large-v1';
/** Characters of a text to embed in one request. */
const maxEmbeddingText = 1_000_000;
export const quantizationMethods = ['linear', 'kmeans', 'binary'] as const;
export const bitWidths = [4, 8, 16] as const;
export const chunkStrategies = ['token', 'sentence', 'paragraph'] as const;

export const QuantizationOptions = Type.Object(
  {
    enabled: Type.Boolean({ default: false }),
    method: Enum(quantizationMethods, { default: 'kmeans' }),
    bit_width: Enum(bitWidths, { default: 8 }),
    kmeans_clusters: Type.Integer({ minimum: 2, maximum: 65536, default: 256 }),
  },
  { additionalProperties: false },
);

export const PreprocessingOptions = Type.Object(
  {
    normalize: Type.Boolean({ default: true }),
    max_tokens: Type.Integer({ minimum: 8, maximum: 8192, default: 512 }),
    overlap: Type.Integer({ minimum: 0, maximum: 4096, default: 50 }),
    strategy: Enum(chunkStrategies, { default: 'token' }),
  },
  { additionalProperties: false },
);

export const EmbeddingOptions = Type.Object(
  {
    enabled: Type.Optional(
      Type.Boolean({ default: true, description: 'Documents only: false stores and text-indexes without embedding.' }),
    ),
    model: Type.Optional(Name({ description: 'Model name; defaults to the server’s default model.' })),
    model_name: Type.Optional(Name({ description: 'Alias of `model`, as the playground sends it.' })),
    quantization: Type.Optional(Type.Partial(QuantizationOptions)),
    preprocessing: Type.Optional(Type.Partial(PreprocessingOptions)),
  },
  {
    additionalProperties: false,
    description:
      'How text is embedded: the model (the server’s default when absent), quantization and preprocessing; for a document, enabled false stores and text-indexes it without vectors.',
  },
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
  notes: Type.Array(Type.String(), { description: 'Operator notes, e.g. why the configured default is not used.' }),
});

export const EmbeddingRequest = Type.Object(
  {
    model_name: Type.Optional(Name({ description: 'Defaults to the server’s default model.' })),
    text: Type.String({ maxLength: maxEmbeddingText, description: 'The text to embed.' }),
    original_text: Type.Optional(
      Type.String({ maxLength: maxEmbeddingText, description: 'Optional second text embedded alongside.' }),
    ),
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
    model_name: Type.Optional(Name()),
    text: Type.String({ maxLength: maxEmbeddingText }),
    original_text: Type.Optional(Type.String({ maxLength: maxEmbeddingText })),
    method: Enum(quantizationMethods, { default: 'kmeans' }),
    bit_width: Enum(bitWidths, { default: 8 }),
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
      bit_width: Type.Integer({ description: '1 for binary, whatever was asked.' }),
      min_val: Type.Number(),
      max_val: Type.Number(),
      codebook: Type.Optional(Type.Array(Type.Number(), { description: 'kmeans: the centroid of each code.' })),
    }),
    compression_ratio: Type.Number({ description: '32 / bits per dimension: the codes against float32.' }),
    overhead_bytes: Type.Integer({ description: 'Per-vector parameters to store besides the codes.' }),
    reconstruction_error: Type.Number({ description: 'Root-mean-square error of dequantize(quantize(v)) vs v.' }),
  }),
]);
