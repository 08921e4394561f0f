// Issue #24: a server whose log reader has gone (or stopped reading) must still stop on SIGTERM/SIGINT, and keep
// serving while its stdout is broken. Each server here logs every request (LOG_LEVEL=info) into pipes this test
// controls; the deadlines only detect a hang, they are not timing targets.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { freePort, repoRoot } from './support/server-process.js';

const hangDeadlineMs = 30_000;

interface Server {
  readonly child: ChildProcessByStdio<null, Readable, Readable>;
  readonly baseUrl: string;
  readonly dataDir: string;
}

/** Starts the built server with stdout and stderr on pipes that nobody reads until the test says so. */
async function startServer(): Promise<Server> {
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), 'godb-e2e-'));
  const child = spawn(process.execPath, [join(repoRoot, 'server', 'dist', 'main.js')], {
    cwd: repoRoot,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      LOG_LEVEL: 'info',
      GRPC_PORT: '0',
      MODEL_CACHE_DIR: join(process.env.TMPDIR ?? '/tmp', 'godb-test-model-cache'),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  child.once('exit', () => process.off('exit', killOnExit));
  const baseUrl = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + hangDeadlineMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}`);
    if (await answers(`${baseUrl}/readyz`)) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error('server did not become ready');
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { child, baseUrl, dataDir };
}

async function answers(url: string): Promise<boolean> {
  try {
    return (await fetch(url)).ok;
  } catch {
    return false;
  }
}

/** Sends requests, a few at a time; each one logs two lines. Returns how many answered 200. */
async function logALot(server: Server, requests: number): Promise<number> {
  let ok = 0;
  for (let sent = 0; sent < requests; sent += 10) {
    const batch = await Promise.all(Array.from({ length: 10 }, () => answers(`${server.baseUrl}/healthz`)));
    ok += batch.filter(Boolean).length;
  }
  return ok;
}

/** Sends the signal and waits for the process to exit: its exit code, or 'hung' (then it is killed). */
async function stop(server: Server, signal: NodeJS.Signals): Promise<number | string | null> {
  const { child } = server;
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
  child.stdout.destroy();
  child.stderr.destroy();
  rmSync(server.dataDir, { recursive: true, force: true });
  return outcome;
}

/** Stops reading stdout and stderr, so the pipes fill up while the server logs. */
function stopReading(server: Server): void {
  server.child.stdout.pause();
  server.child.stderr.pause();
}

/** Closes the read ends of stdout and stderr: the server's next writes fail with EPIPE. */
function closeReaders(server: Server): void {
  server.child.stdout.destroy();
  server.child.stderr.destroy();
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
