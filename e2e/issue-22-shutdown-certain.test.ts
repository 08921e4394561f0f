// Issue #22 (shutdown): a stop must end the process even when its main thread never gets back to the event loop,
// as when a library's exit hook sits in a native wait (sonic-boom's Atomics.wait in issue #24). The deadline here
// only detects a hang; it is not a timing target.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { freePort, repoRoot } from './support/server-process.js';

const hangDeadlineMs = 60_000;

test('a server whose exit is blocked in a native wait is still ended after SIGTERM', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'godb-e2e-'));
  // The fault, injected before the server starts: an 'exit' hook that blocks the main thread for ever.
  const blockExit = join(dir, 'block-exit.mjs');
  writeFileSync(blockExit, "process.on('exit', () => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0));\n");
  const port = await freePort();
  const child = spawn(
    process.execPath,
    ['--import', pathToFileURL(blockExit).href, join(repoRoot, 'server', 'dist', 'main.js')],
    {
      cwd: repoRoot,
      env: {
        ...process.env,
        PORT: String(port),
        HOST: '127.0.0.1',
        DATA_DIR: join(dir, 'data'),
        LOG_LEVEL: 'warn',
        GRPC_PORT: '0',
        MODEL_CACHE_DIR: join(process.env.TMPDIR ?? '/tmp', 'godb-test-model-cache'),
      },
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  try {
    const deadline = Date.now() + hangDeadlineMs;
    while (
      !(await fetch(`http://127.0.0.1:${port}/readyz`).then(
        (r) => r.ok,
        () => false,
      ))
    ) {
      assert.ok(child.exitCode === null && Date.now() < deadline, 'the server did not become ready');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const ended = new Promise<NodeJS.Signals | number | null>((resolve) =>
      child.once('exit', (code, signal) => resolve(signal ?? code)),
    );
    child.kill('SIGTERM');
    let hang: NodeJS.Timeout | undefined;
    const outcome = await Promise.race([
      ended,
      new Promise<string>((resolve) => (hang = setTimeout(() => resolve('still running'), hangDeadlineMs))),
    ]);
    clearTimeout(hang);
    // Its own deadline passed with the main thread stuck, so it was killed from outside.
    assert.equal(outcome, 'SIGKILL');
  } finally {
    child.kill('SIGKILL');
    process.off('exit', killOnExit);
    rmSync(dir, { recursive: true, force: true });
  }
});
