import { quantize } from '../../engine/embeddings/quantize.js';
import type { UseCaseOf } from '../context.js';
import type { EmbeddingDeps } from './deps.js';
import { embedText } from './embed-text.js';

export const createQuantizedEmbeddingUseCase =
  (deps: EmbeddingDeps): UseCaseOf<'create-quantized-embedding'> =>
  async ({ body }, ctx) => {
    const { content, response } = await embedText(deps, body, ctx.signal);
    const q = quantize(content.vector, body.method, body.bit_width, body.kmeans_clusters ?? 256);
    return {
      ...response,
      quantized_vector: q.codes,
      quantization_info: {
        method: q.method,
        bit_width: q.bitWidth,
        min_val: q.minVal,
        max_val: q.maxVal,
        ...(q.codebook && { codebook: q.codebook }),
      },
      compression_ratio: q.compressionRatio,
      overhead_bytes: q.overheadBytes,
      reconstruction_error: q.rmse,
    };
  };
