import { cpus } from 'node:os';
import type { EmbeddingModelInfo, EmbeddingProvider, ProviderOutput } from './embedding-provider.js';
import { useLiteDimensions, type BatchEmbedding, type UseLiteRuntime } from './use-lite-runtime.js';
import { WorkerPool } from './worker-pool.js';

export const useLiteName = 'use-lite-512';

/** Universal Sentence Encoder Lite in a pool of worker threads (started on first use). */
export class UseLiteProvider implements EmbeddingProvider {
  readonly #runtime: UseLiteRuntime;
  readonly #poolSize: number;
  readonly #queueLimit: number;
  #pool: WorkerPool | null = null;

  constructor(options: { runtime: UseLiteRuntime; poolSize: number; queueLimit: number }) {
    this.#runtime = options.runtime;
    this.#poolSize = options.poolSize;
    this.#queueLimit = options.queueLimit;
  }

  models(): EmbeddingModelInfo[] {
    return [
      {
        name: useLiteName,
        provider: 'local',
        dimensions: useLiteDimensions,
        description:
          this.#runtime === 'native'
            ? 'Universal Sentence Encoder Lite (onnxruntime, native CPU)'
            : 'Universal Sentence Encoder Lite (TensorFlow.js, WASM)',
      },
    ];
  }

  async run(_model: EmbeddingModelInfo, texts: string[], signal?: AbortSignal): Promise<ProviderOutput> {
    this.#pool ??= new WorkerPool({
      script: 'use-lite-worker',
      size: Math.max(1, Math.min(this.#poolSize, cpus().length)),
      queueLimit: this.#queueLimit,
      batchSize: 32,
      dimensions: useLiteDimensions,
      modelName: useLiteName,
      workerData: { runtime: this.#runtime },
    });
    return perText(await this.#pool.embed(texts, signal), useLiteDimensions);
  }

  async close(): Promise<void> {
    await this.#pool?.close();
    this.#pool = null;
  }
}

/** A worker pool's answer (one row-major array) as one vector per text. */
export function perText({ vectors, tokenCounts }: BatchEmbedding, dims: number): ProviderOutput {
  return { vectors: tokenCounts.map((_c, i) => vectors.subarray(i * dims, (i + 1) * dims)), tokenCounts };
}
