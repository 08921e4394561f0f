import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openEngine, type Engine, type EngineOptions } from '../engine/engine.js';
import { sharedModelCacheDir } from './model-cache.js';

/**
 * A real engine for engine-level tests: data in `dataDir` (or `:memory:`), the local models only (no
 * bring-your-own folder, no remote provider), one embedding worker.
 */
export function openTestEngine(
  dataDir: string,
  defaultModel = 'glove-100',
  options: Partial<
    Pick<
      EngineOptions,
      | 'vectorCacheBytes'
      | 'vectorIndexBytes'
      | 'textIndexBytes'
      | 'checkpoint'
      | 'clock'
      | 'indexWait'
      | 'restoreSliceRows'
      | 'restoreRetry'
      | 'files'
    >
  > = {},
): Engine {
  return openEngine({
    dataDir,
    ...options,
    embeddings: {
      defaultModel,
      modelsDir: join(tmpdir(), 'godb-test-no-models'),
      modelCacheDir: sharedModelCacheDir,
      workerPoolSize: 1,
      queueLimit: 10,
      cacheSize: 10,
      remote: [],
      http: { timeoutMs: 1000, retries: 0, sleep: async () => {} },
    },
  });
}
