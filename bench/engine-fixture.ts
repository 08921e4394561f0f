import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openEngine } from '../server/src/engine/engine.js';
import { withLocalLog, type TestEngine } from '../server/src/test-support/engine.js';

export const benchViewer = {
  tenantId: '00000000-0000-4000-8000-0000000000be',
  userId: 'bench',
  groups: [] as string[],
};

/**
 * The engine's options as the server composes them for a data folder (its default embedding model `model`; models
 * cached where the tests cache them): what every in-process benchmark opens its engine with.
 */
export function benchEngineOptions(dataDir: string, model = 'use-lite-512') {
  return {
    dataDir,
    embeddings: {
      defaultModel: model,
      modelsDir: join(dataDir, 'models'),
      modelCacheDir: join(tmpdir(), 'godb-test-model-cache'),
      workerPoolSize: 2,
      queueLimit: 1000,
      cacheSize: 1000,
      remote: [],
      http: { timeoutMs: 1000, retries: 0, sleep: async () => {} },
    },
  };
}

/** A real engine on a temporary data folder, as the server composes it. */
export function benchEngine(): { engine: TestEngine; dispose: () => Promise<void> } {
  const dataDir = mkdtempSync(join(tmpdir(), 'godb-bench-'));
  // Writes go through the embedded log, as the server composes it.
  const engine = withLocalLog(openEngine(benchEngineOptions(dataDir)));
  return {
    engine,
    dispose: async () => {
      await engine.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Deterministic pseudo-random generator (the engine's mulberry32). */
export { seededRandom as random } from '../server/src/engine/vectors/kmeans.js';

const vocabulary =
  'aerodynamic boundary layer shock wave turbulent laminar flow heat transfer wing lift drag pressure gradient nozzle supersonic hypersonic viscous flat plate cone cylinder jet noise vortex separation transition stability buckling panel shell stress thermal radiation ablation reentry inlet compressor turbine blade cooling film combustion'.split(
    ' ',
  );

/** A synthetic abstract of about `words` words from an aerospace vocabulary. */
export function syntheticText(next: () => number, words: number): string {
  return Array.from({ length: words }, () => vocabulary[Math.floor(next() * vocabulary.length)]).join(' ');
}

/** A pseudo-word for a vocabulary rank (w0 is the most frequent). */
export const zipfWord = (rank: number) => `w${rank.toString(36)}`;

/**
 * A synthetic text whose words follow Zipf's law over a vocabulary of `vocabulary` pseudo-words (rank r drawn
 * with probability ∝ 1/r, by sampling the log-uniform distribution), as natural language does.
 */
export function zipfText(next: () => number, words: number, vocabulary = 20_000): string {
  return Array.from({ length: words }, () => zipfWord(Math.floor(vocabulary ** next()) - 1)).join(' ');
}

/**
 * Documents `d<from>` … `d<from + count − 1>` as bench:search and bench:ab write them: a title of 6 and a content of
 * 60 Zipf words, embedded with `model`.
 */
export function zipfDocuments(next: () => number, from: number, count: number, model: string) {
  return Array.from({ length: count }, (_v, j) => ({
    id: `d${from + j}`,
    title: zipfText(next, 6),
    content: zipfText(next, 60),
    embedding_options: { model_name: model },
  }));
}
