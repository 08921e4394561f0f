// What the bench:compare drivers share: the server of the checkout under test (its own built server/dist/main.js,
// not this checkout's), the arguments every driver takes, and the one line each prints for the harness to read.
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { freePort, type ServerProcess } from '../e2e/support/server-process.js';

/** The prefix of the line a driver prints its metrics on (`COMPARE_RESULT {"metric": value, …}`). */
export const resultPrefix = 'COMPARE_RESULT ';

/** One measured figure: its value and whether a larger one is better (throughput) or worse (a duration). */
export interface Metric {
  readonly value: number;
  readonly higherIsBetter: boolean;
}

/**
 * The checkout under test, from `--root <dir>` (default: this checkout): a driver runs from the harness's checkout,
 * so that both refs get the same data and the same client code, and starts the server built in `root`.
 *
 * @example const root = rootArgument(process.argv.slice(2)); // '/tmp/godb-bench-compare-x/base'
 */
export function rootArgument(args: readonly string[]): string {
  const at = args.indexOf('--root');
  return resolve(at >= 0 && args[at + 1] ? args[at + 1]! : join(import.meta.dirname, '..'));
}

/** Prints the driver's metrics on the one line the harness parses. */
export function printResult(metrics: Record<string, Metric>): void {
  process.stdout.write(`${resultPrefix}${JSON.stringify(metrics)}\n`);
}

let exitsOnSignals = false;
/** Exits through process.exit on SIGINT or SIGTERM (the harness stopping), so the servers' exit hooks kill them. */
function exitOnSignals(): void {
  if (exitsOnSignals) return;
  exitsOnSignals = true;
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(130));
}

/**
 * Starts `root`'s built server (`server/dist/main.js`, with `root` as its working folder, as `npm start` there
 * would) on a free port and waits until /readyz answers (`readyMs` bounds a broken start, it is not a timing).
 * Like e2e/support/server-process.ts's startServerProcess, which always starts this checkout's server.
 *
 * @example const server = await startServerAt('/tmp/wt/base', { LOG_LEVEL: 'error' }, dataDir);
 */
export async function startServerAt(
  root: string,
  env: Record<string, string>,
  dataDir = mkdtempSync(join(tmpdir(), 'godb-bench-compare-data-')),
  readyMs = 60_000,
): Promise<ServerProcess> {
  exitOnSignals();
  const port = await freePort();
  let output = '';
  // COMPARE_SERVER_NODE_ARGS (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`) profiles the servers under a measurement.
  const nodeArgs = (process.env.COMPARE_SERVER_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const child = spawn(process.execPath, [...nodeArgs, join(root, 'server', 'dist', 'main.js')], {
    cwd: root,
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, GRPC_PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // A driver that fails or is interrupted leaves no server behind.
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  child.once('exit', () => process.off('exit', killOnExit));
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const baseUrl = `http://127.0.0.1:${port}`;
  const deadline = performance.now() + readyMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server of ${root} exited with ${child.exitCode}:\n${output}`);
    const ok = await fetch(`${baseUrl}/readyz`).then(
      (res) => res.ok,
      () => false,
    );
    if (ok) break;
    if (performance.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`server of ${root} did not become ready within ${readyMs / 1000} s:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    baseUrl,
    port,
    dataDir,
    process: child,
    output: () => output,
    stop: (signal = 'SIGTERM') =>
      new Promise((done) => {
        if (child.exitCode !== null) return done(child.exitCode);
        child.once('exit', (code) => done(code));
        child.kill(signal);
      }),
  };
}
