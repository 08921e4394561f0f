import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Runs `run` with a fresh temporary folder for each prefix and removes them afterwards, whatever happens.
 *
 * @example await withTempDirs(['godb-restore-from-', 'godb-restore-to-'], async ([from, to]) => { … });
 */
export async function withTempDirs<const P extends readonly string[], T>(
  prefixes: P,
  run: (dirs: { -readonly [K in keyof P]: string }) => Promise<T>,
): Promise<T> {
  const dirs = prefixes.map((prefix) => mkdtempSync(join(tmpdir(), prefix))) as { -readonly [K in keyof P]: string };
  try {
    return await run(dirs);
  } finally {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  }
}
