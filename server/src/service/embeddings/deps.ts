import type { Embedder } from '../../engine/embeddings/embedder.js';

export interface EmbeddingDeps {
  readonly embedder: Embedder;
}
