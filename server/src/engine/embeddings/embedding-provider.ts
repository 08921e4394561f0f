/** A model the server can embed with, as the models list shows it. */
export interface EmbeddingModelInfo {
  readonly name: string;
  readonly provider: 'local' | 'local-onnx' | 'openai' | 'ollama';
  readonly dimensions: number;
  readonly description: string;
}

/** One vector per text, with the tokens each text counted. */
export interface ProviderOutput {
  readonly vectors: Float32Array[];
  readonly tokenCounts: number[];
}

/**
 * A family of embedding models (use-lite in a worker pool, GloVe, bring-your-own ONNX folders, remote endpoints):
 * what it offers now and how it runs a batch of texts. The `Embedder` puts them behind one interface, with the
 * windowing, pooling and cache they share.
 */
export interface EmbeddingProvider {
  /** The models usable now (a folder added at run time appears on the next call). */
  models(): EmbeddingModelInfo[];
  /** Embeds texts (already windowed) with one of its models; rejects with the signal's reason when it aborts. */
  run(model: EmbeddingModelInfo, texts: string[], signal?: AbortSignal): Promise<ProviderOutput>;
  /** Prepares its slow-to-load model in the background when it is the server's default model. */
  warmUp?(defaultModel: string): Promise<void>;
  close?(): Promise<void>;
}

/** Words of a text: what token counts fall back to when a provider reports none. */
export const wordCount = (text: string): number => (text.match(/\S+/g) ?? []).length;
