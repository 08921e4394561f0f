import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A model cache shared by every test on this machine, so the GloVe conversion (≈5 s) happens once rather than
 * once per test server.
 */
export const sharedModelCacheDir = join(tmpdir(), 'godb-test-model-cache');
