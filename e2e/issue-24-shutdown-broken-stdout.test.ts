// Issue #24: a server whose log reader has gone (or stopped reading) must still stop on SIGTERM/SIGINT, and keep
// serving while its stdout is broken. Each server here logs every request (LOG_LEVEL=info) into pipes this test
// controls; the deadlines only detect a hang, they are not timing targets.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { startServerProcess, type ServerProcess } from './support/server-process.js';

const hangDeadlineMs = 30_000;

/** Starts the built server logging every request, its stdout and stderr on pipes the test stops reading at will. */
function startServer(): Promise<ServerProcess> {
  return startServerProcess({
    LOG_LEVEL: 'info',
    MODEL_CACHE_DIR: join(process.env.TMPDIR ?? '/tmp', 'godb-test-model-cache'),
  });
}

async function answers(url: string): Promise<boolean> {
  try {
    return (await fetch(url)).ok;
  } catch {
    return false;
  }
}

/** Sends requests, a few at a time; each one logs two lines. Returns how many answered 200. */
async function logALot(server: ServerProcess, requests: number): Promise<number> {
  let ok = 0;
  for (let sent = 0; sent < requests; sent += 10) {
    const batch = await Promise.all(Array.from({ length: 10 }, () => answers(`${server.baseUrl}/healthz`)));
    ok += batch.filter(Boolean).length;
  }
  return ok;
}

/** Sends the signal and waits for the process to exit: its exit code, or 'hung' (then it is killed). */
async function stop(server: ServerProcess, signal: NodeJS.Signals): Promise<number | string | null> {
  const child = server.process;
  const outcome = await new Promise<number | string | null>((resolve) => {
    if (child.exitCode !== null) return resolve(child.exitCode);
    const hang = setTimeout(() => resolve('hung'), hangDeadlineMs);
    child.once('exit', (code, killedBy) => {
      clearTimeout(hang);
      resolve(code ?? killedBy);
    });
    child.kill(signal);
  });
  if (outcome === 'hung') {
    child.kill('SIGKILL');
    await new Promise((resolve) => child.once('exit', resolve));
  }
  child.stdout?.destroy();
  child.stderr?.destroy();
  rmSync(server.dataDir, { recursive: true, force: true });
  return outcome;
}

/** Stops reading stdout and stderr, so the pipes fill up while the server logs. */
function stopReading(server: ServerProcess): void {
  server.process.stdout?.pause();
  server.process.stderr?.pause();
}

/** Closes the read ends of stdout and stderr: the server's next writes fail with EPIPE. */
function closeReaders(server: ServerProcess): void {
  server.process.stdout?.destroy();
  server.process.stderr?.destroy();
}

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  test(`a server whose log reader has gone exits on ${signal}`, async () => {
    const server = await startServer();
    // The reader first falls behind (the server has lines waiting to be written), then goes away entirely: what
    // a supervisor or a `| tee` does when it dies before the server.
    stopReading(server);
    await logALot(server, 600);
    closeReaders(server);
    assert.equal(await stop(server, signal), 0);
  });
}

test('a server whose log reader stopped reading (a full pipe) exits on SIGTERM', async () => {
  const server = await startServer();
  stopReading(server);
  assert.equal(await logALot(server, 600), 600, 'a full log pipe does not stop the server answering');
  assert.equal(await stop(server, 'SIGTERM'), 0);
});

test('a server keeps serving after its stdout and stderr break', async () => {
  const server = await startServer();
  closeReaders(server);
  assert.equal(await logALot(server, 200), 200);
  const health = await fetch(`${server.baseUrl}/healthz`);
  assert.equal(health.status, 200);
  assert.equal(await stop(server, 'SIGTERM'), 0);
});
