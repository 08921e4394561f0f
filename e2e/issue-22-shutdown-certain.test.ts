// Issue #22 (shutdown): a stop finishes the work in flight, then ends the process; and it ends the process even
// when the main thread never gets back to the event loop (as when a library's exit hook sits in a native wait,
// sonic-boom's Atomics.wait in issue #24). The deadlines here only detect a hang; they are not timing targets.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pathToFileURL } from 'node:url';
import { sharedGloveReady } from '../server/src/test-support/model-cache.js';
import { freePort, repoRoot } from './support/server-process.js';

const hangDeadlineMs = 60_000;
const modelCacheDir = join(process.env.TMPDIR ?? '/tmp', 'godb-test-model-cache');

interface Server {
  readonly child: ChildProcessByStdio<null, Readable, null>;
  readonly baseUrl: string;
  /** Resolves with the exit code, or the signal that ended the process. */
  readonly ended: Promise<number | NodeJS.Signals | null>;
  /** Resolves when the server has logged a line containing `text`. */
  logged(text: string): Promise<void>;
}

/** Starts the built server with its own data folder, logging every request; `nodeArgs` go before the script. */
async function startServer(t: { after(fn: () => void): void }, nodeArgs: string[] = []): Promise<Server> {
  const dir = mkdtempSync(join(tmpdir(), 'godb-e2e-'));
  const port = await freePort();
  const child = spawn(process.execPath, [...nodeArgs, join(repoRoot, 'server', 'dist', 'main.js')], {
    cwd: repoRoot,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: join(dir, 'data'),
      LOG_LEVEL: 'info',
      GRPC_PORT: '0',
      MODEL_CACHE_DIR: modelCacheDir,
      RATE_LIMIT_RPS: '10000',
      RATE_LIMIT_BURST: '10000',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  t.after(() => {
    child.kill('SIGKILL');
    process.off('exit', killOnExit);
    rmSync(dir, { recursive: true, force: true });
  });
  let output = '';
  const waiting: { text: string; resolve: () => void }[] = [];
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString();
    for (const wait of waiting.filter((w) => output.includes(w.text))) wait.resolve();
  });
  const ended = new Promise<number | NodeJS.Signals | null>((resolve) =>
    child.once('exit', (code, signal) => resolve(signal ?? code)),
  );
  const baseUrl = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + hangDeadlineMs;
  while (
    !(await fetch(`${baseUrl}/readyz`).then(
      (r) => r.ok,
      () => false,
    ))
  ) {
    assert.ok(child.exitCode === null && Date.now() < deadline, 'the server did not become ready');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    child,
    baseUrl,
    ended,
    logged: (text) =>
      output.includes(text) ? Promise.resolve() : new Promise((resolve) => waiting.push({ text, resolve })),
  };
}

/** The server's exit code or signal, or 'still running' when it has not ended within the hang deadline. */
async function outcome(server: Server): Promise<number | NodeJS.Signals | null | 'still running'> {
  let hang: NodeJS.Timeout | undefined;
  const result = await Promise.race([
    server.ended,
    new Promise<'still running'>((resolve) => (hang = setTimeout(() => resolve('still running'), hangDeadlineMs))),
  ]);
  clearTimeout(hang);
  return result;
}

async function post(server: Server, path: string, body: unknown, token?: string): Promise<Response> {
  return fetch(`${server.baseUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token && { authorization: `Bearer ${token}` }) },
    body: JSON.stringify(body),
  });
}

test('a request in flight when the stop begins gets its answer, and the server then exits cleanly', async (t) => {
  const server = await startServer(t);
  const credentials = { email: `stop-${randomUUID()}@example.com`, password: 'password-1234' };
  await post(server, '/auth/register', { ...credentials, tenant_id: randomUUID() });
  const { token } = (await (await post(server, '/auth/login', credentials)).json()) as { token: string };
  // The server converts GloVe when a request first needs it (issue #37), and a request would wait 5 s for that: the
  // shared cache is filled first, so the request below waits only for the model's worker to start.
  await sharedGloveReady();
  // The first embedding starts the model's worker: the request is still being worked on when SIGTERM comes.
  const answer = post(server, '/api/v1/embeddings', { model_name: 'glove-100', text: 'shock tubes' }, token);
  await server.logged('"url":"/api/v1/embeddings"');
  server.child.kill('SIGTERM');
  assert.equal((await answer).status, 200);
  // Its keep-alive connection is closed once answered, not held open until a force-exit (exit code 1).
  assert.equal(await outcome(server), 0);
});

test('a server whose exit is blocked in a native wait is still ended after SIGTERM', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'godb-e2e-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  // The fault, injected before the server starts: an 'exit' hook that blocks the main thread for ever.
  const blockExit = join(dir, 'block-exit.mjs');
  writeFileSync(blockExit, "process.on('exit', () => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0));\n");
  const server = await startServer(t, ['--import', pathToFileURL(blockExit).href]);
  server.child.kill('SIGTERM');
  // Its own deadline passed with the main thread stuck, so it was killed from outside.
  assert.equal(await outcome(server), 'SIGKILL');
});
