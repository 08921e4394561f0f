import { createError, type EmbeddingOptions } from '@godb/contract';
import { defaultEmbedOptions, type EmbedOptions } from '../../engine/embeddings/embedder.js';

/** The model a request asks for: `model_name`, else the embedding options' model, else the server default. */
export function requestedModel(
  modelName: string | undefined,
  options: EmbeddingOptions | undefined,
): string | undefined {
  return modelName || options?.model_name || options?.model || undefined;
}

/** Preprocessing options with the specification's defaults (max_tokens 512, overlap 50, strategy token). */
export function embedOptionsOf(options: EmbeddingOptions | undefined): EmbedOptions {
  const p = options?.preprocessing ?? {};
  return {
    normalize: p.normalize ?? defaultEmbedOptions.normalize,
    maxTokens: p.max_tokens ?? defaultEmbedOptions.maxTokens,
    overlap: p.overlap ?? defaultEmbedOptions.overlap,
    strategy: p.strategy ?? defaultEmbedOptions.strategy,
  };
}

/** Refuses blank text with a 400 naming the field. */
export function requireText(value: string, field: string): string {
  if (value.trim() === '') throw createError('EMPTY_TEXT', { field }, { field });
  return value;
}
