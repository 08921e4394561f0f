import { join, resolve } from 'node:path';
import { remoteModelsOf, type Config } from '../config/env.js';
import type { EngineOptions } from '../engine/engine.js';
import type { ObjectStore } from '../engine/files/object-store.js';
import type { OperationClock } from '../engine/operations/operation-clock.js';
import { parseRerankModels } from '../engine/rerank/rerank-models-config.js';
import { sleep } from './sleep.js';

/** What the engine is opened with besides the configuration. */
export interface EngineParts {
  /** Where uploaded files go, when not DATA_DIR/files (a bucket, or the cluster's shared store). */
  readonly files: ObjectStore | null;
  /** Where the snapshots users take go, when not DATA_DIR/snapshots. */
  readonly snapshots: ObjectStore | null;
  readonly clock: OperationClock;
}

/**
 * The engine's options from the configuration: memory budgets, search threads, checkpoints, restores, embeddings.
 *
 * @example const engine = openEngine(engineOptionsOf(config, { files: null, snapshots: null, clock }));
 */
export function engineOptionsOf(config: Config, { files, snapshots, clock }: EngineParts): EngineOptions {
  return {
    dataDir: config.DATA_DIR,
    ...(files && { files }),
    ...(snapshots && { snapshots }),
    clock,
    vectorCacheBytes: config.VECTOR_CACHE_MB * 1024 * 1024,
    ...(config.VECTOR_INDEX_MEMORY_MB > 0 && { vectorIndexBytes: config.VECTOR_INDEX_MEMORY_MB * 1024 * 1024 }),
    ...(config.TEXT_INDEX_MEMORY_MB > 0 && { textIndexBytes: config.TEXT_INDEX_MEMORY_MB * 1024 * 1024 }),
    search: { threads: config.SEARCH_THREADS, batchMinVectors: config.SEARCH_BATCH_MIN_VECTORS },
    searchPool: { threads: config.SEARCH_THREADS, maxQueued: config.MAX_CONCURRENT_OPERATIONS },
    checkpoint: { writes: config.CHECKPOINT_WRITES, intervalMs: config.CHECKPOINT_INTERVAL_S * 1000 },
    restoreSliceRows: config.RESTORE_SLICE_ROWS,
    // A tenant restore that fails part way is tried again after 1, 4 and 16 seconds.
    restoreRetry: { retries: 3, wait: (attempt) => sleep(1000 * 4 ** (attempt - 1)) },
    indexWait: () => new Promise((done) => setTimeout(done, config.INDEX_WAIT_MS).unref()),
    rerank: {
      modelsDir: resolve(config.RERANK_MODELS_DIR),
      http: parseRerankModels(config.RERANK_MODELS, {
        apiKey: config.RERANK_API_KEY,
        models: config.RERANK_API_KEY_MODELS,
      }),
      // Inside the answer's own time: a slow reranker answers 503 before the request's 504.
      timeoutMs: Math.min(config.RERANK_TIMEOUT_MS, Math.floor(config.WRITE_TIMEOUT_MS * 0.8)),
    },
    embeddings: {
      defaultModel: config.DEFAULT_EMBEDDING_MODEL,
      modelsDir: resolve(config.MODELS_DIR),
      modelCacheDir: resolve(config.MODEL_CACHE_DIR || join(config.DATA_DIR, 'model-cache')),
      // A request needing a model still being prepared (the GloVe conversion) answers 503 MODEL_LOADING after 5 s,
      // well before its 504.
      modelWaitMs: Math.min(5_000, Math.floor(config.WRITE_TIMEOUT_MS / 2)),
      sleep,
      workerPoolSize: config.WORKER_POOL_SIZE,
      useLiteRuntime: config.USE_LITE_RUNTIME,
      queueLimit: config.QUEUE_SIZE,
      cacheSize: config.CACHE_SIZE,
      remote: remoteModelsOf(config),
      http: {
        timeoutMs: config.EMBEDDING_TIMEOUT_MS,
        retries: config.EMBEDDING_RETRIES,
        sleep: (ms) => new Promise((done) => setTimeout(done, ms)),
      },
    },
  };
}
