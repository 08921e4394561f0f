import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve as resolvePath } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sharedGloveReady, sharedModelCacheDir } from '../../server/src/test-support/model-cache.js';

export const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

/** A free TCP port on loopback. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

export interface ServerProcess {
  readonly baseUrl: string;
  readonly port: number;
  readonly dataDir: string;
  readonly process: ChildProcess;
  /** Everything the server printed, for assertions and for diagnosing failures. */
  output(): string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/**
 * One JSON request to a server process, with the bearer `token` when given: its status and parsed body.
 *
 * @example const { status, body } = await api(server, 'POST', '/api/v1/documents', token, { title: 'A', content: 'b' });
 */
export async function api(
  server: Pick<ServerProcess, 'baseUrl'>,
  method: string,
  path: string,
  token?: string,
  body?: unknown,
) {
  const res = await fetch(`${server.baseUrl}${path}`, {
    method,
    headers: {
      ...(body !== undefined && { 'content-type': 'application/json' }),
      ...(token && { authorization: `Bearer ${token}` }),
    },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** How a benchmark launches the server: `prefix` runs before node (`taskset -c 0`), `nodeArgs` after it (`--cpu-prof`). */
export interface Launch {
  readonly prefix?: readonly string[];
  readonly nodeArgs?: readonly string[];
  /** Another build's entry point (a before/after comparison), instead of `server/dist/main.js`. */
  readonly main?: string;
}

/**
 * Starts the built server (`server/dist/main.js`, as `npm start` does) on a free port with its own data folder,
 * and waits until /readyz answers.
 */
export async function startServerProcess(
  env: Record<string, string> = {},
  dataDir?: string,
  launch: Launch = {},
): Promise<ServerProcess> {
  // Servers convert GloVe when a request first names glove-100 (issue #37; 503 MODEL_LOADING after 5 s meanwhile):
  // the shared test cache is filled first, as the callers that name glove-100 expect it ready.
  if (env.MODEL_CACHE_DIR !== undefined && resolvePath(env.MODEL_CACHE_DIR) === resolvePath(sharedModelCacheDir))
    await sharedGloveReady();
  const port = await freePort();
  const dir = dataDir ?? mkdtempSync(join(tmpdir(), 'godb-e2e-'));
  let output = '';
  const argv = [...(launch.nodeArgs ?? []), launch.main ?? join(repoRoot, 'server', 'dist', 'main.js')];
  const [command, ...args] = [...(launch.prefix ?? []), process.execPath, ...argv] as [string, ...string[]];
  const child = spawn(command, args, {
    cwd: repoRoot,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dir,
      LOG_LEVEL: 'warn',
      GRPC_PORT: '0',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // A test runner that is interrupted must not leave servers behind.
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  child.once('exit', () => process.off('exit', killOnExit));
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const baseUrl = `http://127.0.0.1:${port}`;
  // SERVER_READY_S: longer on a machine other suites load (a start took over 20 s at load average 20).
  const readyS = Number(process.env.SERVER_READY_S ?? 20);
  const deadline = Date.now() + readyS * 1000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}:\n${output}`);
    try {
      const res = await fetch(`${baseUrl}/readyz`);
      if (res.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`server did not become ready within ${readyS} s:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    baseUrl,
    port,
    dataDir: dir,
    process: child,
    output: () => output,
    stop: (signal = 'SIGTERM') =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve(child.exitCode);
        child.once('exit', (code) => {
          if (!dataDir) rmSync(dir, { recursive: true, force: true });
          resolve(code);
        });
        child.kill(signal);
      }),
  };
}
