import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from './nats-cluster.js';
import { sharedGloveReady, sharedModelCacheDir } from './model-cache.js';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

/** A GoDB server process started from the sources (`server/src/main.ts`, as `npm start` runs the build). */
export interface NodeProcess {
  /** `http://127.0.0.1:<PORT>`: it listens once its start (in cluster mode, the log's buckets and streams) is done. */
  readonly baseUrl: string;
  /** Everything it wrote to stdout (its JSON log lines at LOG_LEVEL) and stderr, so far. */
  output(): string;
  /** Its exit code once it exited (2: it refused to start, one line on stderr). */
  readonly exited: Promise<number | null>;
  /** Stops it (SIGTERM) if it still runs, waits for its exit and removes its data folder. */
  stop(): Promise<void>;
  /** Sends it `signal` (SIGKILL: a crash, nothing saved) and waits for its exit; its data folder stays. */
  kill(signal: NodeJS.Signals): Promise<void>;
}

/**
 * Starts a GoDB process with `env` on a free port and a new data folder, logging at info; answers at once (it does
 * not wait until the node serves: a test that watches the start polls `baseUrl` or reads `output()`).
 *
 * @example const node = await startNodeProcess({ NATS_URL: nats.url, NODE_ID: 'c', JWT_SECRET: secret });
 */
export async function startNodeProcess(env: Record<string, string>): Promise<NodeProcess> {
  // As startTestServer: GloVe is converted lazily, so the shared cache is filled first unless the test gives its own.
  if (env.MODEL_CACHE_DIR === undefined) await sharedGloveReady();
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), 'godb-node-process-'));
  const child = spawn(
    process.execPath,
    ['--conditions=source', '--import', 'tsx', join(repoRoot, 'server', 'src', 'main.ts')],
    {
      cwd: repoRoot,
      env: {
        PATH: process.env.PATH,
        PORT: String(port),
        HOST: '127.0.0.1',
        GRPC_PORT: '0',
        DATA_DIR: dataDir,
        LOG_LEVEL: 'info',
        MODEL_CACHE_DIR: sharedModelCacheDir,
        MODELS_DIR: join(dataDir, 'models'),
        WEB_DIST: join(dataDir, 'no-web'),
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  // A test runner that is interrupted leaves no server behind.
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      process.off('exit', killOnExit);
      resolve(code);
    }),
  );
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    output: () => output,
    exited,
    async kill(signal) {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
