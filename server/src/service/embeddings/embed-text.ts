import { createError, type EmbeddingOptions } from '@godb/contract';
import { embedOptionsOf, requestedModel, requireText } from './embed-options.js';
import type { EmbeddingDeps } from './deps.js';

export interface EmbedTextInput {
  readonly model_name?: string | undefined;
  readonly text: string;
  readonly original_text?: string | undefined;
  readonly embedding_options?: EmbeddingOptions | undefined;
}

/**
 * Embeds `text` and, when given and not blank, `original_text`, timing the work. Shared by both endpoints; `signal`
 * is the caller's (see RequestContext).
 */
export async function embedText(deps: EmbeddingDeps, body: EmbedTextInput, signal?: AbortSignal) {
  const text = requireText(body.text, 'body.text');
  const started = performance.now();
  const model = deps.embedder.resolve(requestedModel(body.model_name, body.embedding_options));
  const texts = body.original_text?.trim() ? [text, body.original_text] : [text];
  const [content, original] = await deps.embedder.embed(
    model.name,
    texts,
    embedOptionsOf(body.embedding_options),
    signal,
  );
  if (!content) throw createError('INTERNAL', { request_id: 'embedding' });
  return {
    content,
    response: {
      content_embedding: Array.from(content.vector),
      ...(original && { original_text_embedding: Array.from(original.vector) }),
      model_name: model.name,
      token_count: content.tokenCount,
      dimensions: model.dimensions,
      processing_time_ms: Math.round((performance.now() - started) * 1000) / 1000,
    },
  };
}
