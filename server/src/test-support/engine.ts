import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DocumentInput } from '@godb/contract';
import type { Viewer } from '../engine/documents/types.js';
import { openEngine, type Engine, type EngineOptions } from '../engine/engine.js';
import { DocumentCommands } from '../engine/operations/document-commands.js';
import { LocalLog } from '../engine/operations/local-log.js';
import { OperationApplier } from '../engine/operations/operation-applier.js';
import { sharedModelCacheDir } from './model-cache.js';

/** An engine with the embedded log composed on it, as the server composes it (compose/write-log.ts). */
export interface TestEngine extends Engine {
  readonly log: LocalLog;
  readonly commands: DocumentCommands;
  /**
   * Prepares, embeds and writes documents through the log, for tests and benchmarks that decided who may write
   * themselves (the service's addDocuments also checks who may write over an existing id).
   */
  add(
    viewer: Viewer,
    inputs: readonly DocumentInput[],
    path: (i: number) => string,
    signal?: AbortSignal,
  ): Promise<{ id: string; version: number }[]>;
}

/**
 * The engine with its writes composed as the embedded server composes them: one applier, a LocalLog, and the
 * documents' commands.
 *
 * @example const engine = withLocalLog(openEngine(options)); await engine.add(viewer, [doc], () => 'body');
 */
export function withLocalLog(engine: Engine, node = 'test-node'): TestEngine {
  const applier = new OperationApplier({ ...engine, node });
  const log = new LocalLog({ applier, clock: engine.clock, node, snapshots: engine.snapshots });
  const commands = new DocumentCommands({ log, documents: engine.documents, files: engine.files, clock: engine.clock });
  return Object.assign(engine, {
    log,
    commands,
    async add(viewer: Viewer, inputs: readonly DocumentInput[], path: (i: number) => string, signal?: AbortSignal) {
      const prepared = engine.documents.preparation.prepare(viewer, inputs, path);
      signal?.throwIfAborted();
      await engine.documents.preparation.embed(prepared, signal);
      return commands.write(viewer, prepared, path, { signal });
    },
  });
}

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
): TestEngine {
  const engine = openEngine({
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
  return withLocalLog(engine);
}
