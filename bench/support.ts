import { request, type Agent, type ClientRequest, type IncomingHttpHeaders } from 'node:http';
import { cpus, totalmem } from 'node:os';
import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * A benchmarked server's settings that keep its own limits out of the measurement: the rate limit (100/s, burst 50)
 * and the bound on concurrent operations raised, and only errors logged.
 */
export const unthrottledServerEnv = {
  RATE_LIMIT_RPS: '1000000',
  RATE_LIMIT_BURST: '1000000',
  MAX_CONCURRENT_OPERATIONS: '1000',
  LOG_LEVEL: 'error',
} as const;

export const machine = () => ({
  cpus: cpus().length,
  cpu_model: cpus()[0]?.model ?? 'unknown',
  memory_gib: Math.round(totalmem() / 2 ** 30),
  node: process.version,
  date: new Date().toISOString(),
});

export function caveat(): void {
  const m = machine();
  process.stdout.write(
    `Machine: ${m.cpus} cores (${m.cpu_model}), ${m.memory_gib} GiB, Node ${m.node}. Shared and noisy: compare the ratios in one run, not absolute numbers across runs.\n\n`,
  );
}

/** Writes bench/results/<name>.json (committed; the documentation's charts are drawn from these files). */
export function saveResults(name: string, results: unknown): void {
  const dir = fileURLToPath(new URL('./results/', import.meta.url));
  mkdirSync(dir, { recursive: true });
  writeFileSync(`${dir}${name}.json`, `${JSON.stringify({ machine: machine(), results }, null, 2)}\n`);
  process.stdout.write(`\nSaved bench/results/${name}.json\n`);
}

export function table(rows: Record<string, string | number>[]): void {
  if (rows.length === 0) return;
  const headers = Object.keys(rows[0]!);
  const widths = headers.map((h) => Math.max(h.length, ...rows.map((r) => String(r[h]).length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join('  ');
  process.stdout.write(`${line(headers)}\n${line(widths.map((w) => '-'.repeat(w)))}\n`);
  for (const row of rows) process.stdout.write(`${line(headers.map((h) => String(row[h])))}\n`);
}

/** Runs `fn` repeatedly for at least `seconds`, after a warm-up run; returns operations per second. */
export async function throughput(fn: () => Promise<number>, seconds: number): Promise<number> {
  await fn();
  let items = 0;
  const start = performance.now();
  while (performance.now() - start < seconds * 1000) items += await fn();
  return items / ((performance.now() - start) / 1000);
}

/**
 * The most operations per second `clients` concurrent loops reach in `seconds` (a closed loop: each starts its next
 * call when the last one answered). Loop `client` calls `work(client, turn)` with its turns 0, 1, 2, …
 *
 * @example await closedLoopRate(4, 10, (c, turn) => ask(server, c + turn * 4));
 */
export async function closedLoopRate(
  clients: number,
  seconds: number,
  work: (client: number, turn: number) => Promise<void>,
): Promise<number> {
  let done = 0;
  const start = performance.now();
  const end = start + seconds * 1000;
  await Promise.all(
    Array.from({ length: clients }, async (_v, client) => {
      for (let turn = 0; performance.now() < end; turn += 1) {
        await work(client, turn);
        done += 1;
      }
    }),
  );
  return done / ((performance.now() - start) / 1000);
}

/** An HTTP answer read whole. */
export interface HttpAnswer {
  readonly status: number;
  readonly body: string;
  readonly headers: IncomingHttpHeaders;
}

/** One HTTP request through `agent`, its body sent by writeBody, its answer read whole. */
export function httpRequest(
  url: string,
  options: {
    method: string;
    agent: Agent;
    headers: Record<string, string>;
    body?: string | AsyncIterable<string> | undefined;
  },
): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: options.method, agent: options.agent, headers: options.headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString(), headers: res.headers }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
    writeBody(req, options.body).catch(reject);
  });
}

/** The headers of a request to the server: JSON or NDJSON by the body, and `token` as the bearer (none when empty). */
export const requestHeaders = (
  body: string | AsyncIterable<string> | undefined,
  token: string,
): Record<string, string> => ({
  ...(body !== undefined && { 'content-type': typeof body === 'string' ? 'application/json' : 'application/x-ndjson' }),
  ...(token && { authorization: `Bearer ${token}` }),
});

/** A JSON request to the server as `token` (none when empty), its answer parsed; a status of 300 or more throws. */
export async function jsonCall(
  baseUrl: string,
  agent: Agent,
  token: string,
  method: string,
  path: string,
  body?: string,
): Promise<Record<string, unknown>> {
  const answer = await httpRequest(`${baseUrl}${path}`, {
    method,
    agent,
    headers: {
      ...(body !== undefined && { 'content-type': 'application/json' }),
      ...(token && { authorization: `Bearer ${token}` }),
    },
    body,
  });
  if (answer.status >= 300) throw new Error(`${method} ${path}: ${answer.status} ${answer.body.slice(0, 300)}`);
  return JSON.parse(answer.body) as Record<string, unknown>;
}

/** Sends a request's body: a string at once, or a stream of pieces with backpressure (an NDJSON import), then ends it. */
export async function writeBody(req: ClientRequest, body?: string | AsyncIterable<string>): Promise<void> {
  if (body === undefined || typeof body === 'string') {
    req.end(body);
    return;
  }
  for await (const piece of body) if (!req.write(piece)) await new Promise((r) => req.once('drain', r));
  req.end();
}
