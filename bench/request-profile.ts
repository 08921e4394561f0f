// npm run bench:request-profile — where one vector query's time goes between the socket and usearch (decision 0049).
// A real server process, run under `node --cpu-prof`, holds BENCH_VECTORS (50,000) synthetic 128-d f16 vectors; one
// client sends BENCH_SECONDS (20) of top-10 vector searches, then /healthz, beside raw usearch built on the same
// vectors with the same parameters in this process. The server's profile is summed by where each sample's code
// lives (Fastify, Ajv, SQLite, usearch, GoDB's layers …), counting only the samples of the query phase. With
// BENCH_BEFORE_MAIN, another build is compared with this one in the same run (see compare()).
import { Agent } from 'node:http';
import { randomUUID } from 'node:crypto';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Index, MetricKind, ScalarKind } from 'usearch';
import { startServerProcess } from '../e2e/support/server-process.js';
import { caveat, jsonCall, table, unthrottledServerEnv } from './support.js';
import { clusteredVectors, row, rowJson } from './vector-data.js';

const n = Number(process.env.BENCH_VECTORS ?? 50_000);
const seconds = Number(process.env.BENCH_SECONDS ?? 20);
const dims = 128;
const k = 10;
const hnsw = { m: 16, ef_construction: 200, ef_search: 100 };

caveat();
const { data, queries } = clusteredVectors(n, 200, dims);
const normalised = new Float32Array(data.matrix.length);
for (let i = 0; i < n; i += 1)
  normalised.set(
    row(data, i).map((x) => x / data.norms[i]!),
    i * dims,
  );
const raw = new Index({
  dimensions: dims,
  metric: MetricKind.Cos,
  quantization: ScalarKind.F16,
  connectivity: hnsw.m,
  expansion_add: hnsw.ef_construction,
  expansion_search: hnsw.ef_search,
  multi: false,
});
raw.add(
  BigUint64Array.from({ length: n }, (_v, i) => BigInt(i)),
  normalised,
  0,
);

const env = {
  ...unthrottledServerEnv,
  MODEL_CACHE_DIR: join(tmpdir(), 'godb-test-model-cache'),
};
const dataDir = mkdtempSync(join(tmpdir(), 'godb-bench-profile-'));
const profileDir = mkdtempSync(join(tmpdir(), 'godb-bench-cpuprofile-'));
const agent = new Agent({ keepAlive: true, maxSockets: 4 });
let token = '';
let server = await startServerProcess(env, dataDir);
const call = (method: string, path: string, body?: string) =>
  jsonCall(server.baseUrl, agent, token, method, path, body);
const credentials = { email: `bench-${randomUUID()}@example.com`, password: 'password-1234' };
await call('POST', '/auth/register', JSON.stringify({ ...credentials, tenant_id: randomUUID() }));
const login = async () => {
  token = '';
  token = (await call('POST', '/auth/login', JSON.stringify(credentials))).token as string;
};
await login();
await call(
  'POST',
  '/api/v1/collections',
  JSON.stringify({ name: 'bench', vectors: { v: { dimensions: dims, distance: 'cosine', storage: 'f16', hnsw } } }),
);
for (let from = 0; from < n; from += 1000) {
  const docs: string[] = [];
  for (let i = from; i < Math.min(n, from + 1000); i += 1)
    docs.push(`{"id":"d-${i}","primary_table":"bench","metadata":{"bucket":${i % 100}},"vector":${rowJson(data, i)}}`);
  await call('POST', '/api/v1/documents/batch', `[${docs.join(',')}]`);
}
const ready = async () => {
  for (;;) {
    const s = (await call('GET', '/api/v1/collections/bench')).vector_stats as Record<string, { index: string }>;
    if (s.v!.index === 'ready') return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
};
await ready();
await server.stop();

const bodies = Array.from({ length: 200 }, (_v, q) =>
  JSON.stringify({
    primary_table: 'bench',
    vector_name: 'v',
    vector: JSON.parse(rowJson(queries, q)) as number[],
    threshold: 0,
    limit: k,
  }),
);
const queryVectors = Array.from({ length: 200 }, (_v, q) => row(queries, q).slice());
/** Operations per second of `run` for `s` seconds, one at a time. */
async function rate(s: number, run: (i: number) => unknown): Promise<number> {
  let done = 0;
  const start = performance.now();
  while (performance.now() - start < s * 1000) await run(done++);
  return done / ((performance.now() - start) / 1000);
}
/**
 * BENCH_BEFORE_MAIN (another build's server/dist/main.js, e.g. copied before a change): that build and this one,
 * each on its own copy of the data folder, queried in turns of one second, ten turns each, in the same run.
 */
async function compare(): Promise<{ before: number; after: number } | null> {
  const main = process.env.BENCH_BEFORE_MAIN;
  if (!main) return null;
  const current = { server, token };
  const otherDir = `${dataDir}-before`;
  cpSync(dataDir, otherDir, { recursive: true });
  server = await startServerProcess(env, otherDir, { main });
  await login();
  await ready();
  const before = { server, token };
  const sum = { before: 0, after: 0 };
  for (let turn = 0; turn < 20; turn += 1) {
    const side = turn % 2 === 0 ? 'before' : 'after';
    ({ server, token } = side === 'before' ? before : current);
    await rate(0.3, search);
    sum[side] += await rate(1, search);
  }
  await before.server.stop();
  rmSync(otherDir, { recursive: true, force: true });
  ({ server, token } = current);
  return { before: sum.before / 10, after: sum.after / 10 };
}

// The profiled run: the same data folder, the server restarted under --cpu-prof.
server = await startServerProcess(env, dataDir, { nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] });
await login();
await ready();
const profiled = server;
let engineMs = 0;
let searches = 0;
/** Searches the profiled server answered after its first (the profile's query phase): the per-query divisor. */
let served = 0;
const search = async (i: number) => {
  const answer = await call('POST', '/api/v1/search/vector', bodies[i % 200]);
  engineMs += answer.time_taken as number;
  searches += 1;
  if (server === profiled) served += 1;
};
const compared = await compare();
await rate(2, search); // warm-up
engineMs = 0;
searches = 0;
const godbQps = await rate(seconds, search);
const healthQps = await rate(5, () => call('GET', '/healthz'));
const rawQps = await rate(5, (i) => raw.search(queryVectors[i % 200]!, k, 1));
await server.stop();
agent.destroy();

// The profile: samples after the first one inside the vector search's use case (the query phase), by location.
const file = readdirSync(profileDir).find((f) => f.endsWith('.cpuprofile'))!;
const profile = JSON.parse(readFileSync(join(profileDir, file), 'utf8')) as {
  nodes: { id: number; callFrame: { functionName: string; url: string }; children?: number[] }[];
  samples: number[];
  timeDeltas: number[];
};
const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const parent = new Map<number, number>();
for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
const stackOf = (id: number) => {
  const frames = [];
  for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) frames.push(byId.get(at)!.callFrame);
  return frames;
};
const where = (url: string, name: string): string => {
  if (url === '') return name.startsWith('(') ? name : `native: ${name}`;
  const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (m) return m[1]!;
  if (url.startsWith('node:')) return url.replace(/^node:internal\/(?:deps\/)?/, 'node:').split('/')[0]!;
  const g = /server\/(?:dist|src)\/(.+?)\/[^/]+$/.exec(url);
  if (g) return `godb ${g[1]}`;
  const c = /contract\/(?:dist|src)/.exec(url);
  return c ? 'godb contract' : url;
};
type Frame = { functionName: string; url: string };
/** What a sample is doing: the first of these that any frame of its stack belongs to (decision 0049's table). */
const phases: [string, (f: Frame) => boolean][] = [
  ['usearch search', (f) => f.url.includes('usearch')],
  ['socket write (writev)', (f) => f.functionName === 'writev' && f.url === ''],
  ['authentication', (f) => f.url.includes('/auth/') || f.functionName === 'authenticate'],
  ['request body JSON parse', (f) => f.functionName === 'defaultJsonParser' || f.url.includes('secure-json-parse')],
  ['Ajv validation', (f) => /^validate\d*$/.test(f.functionName) || f.url.includes('/ajv/')],
  [
    'response serialization',
    (f) => (f.functionName === 'serialize' && f.url.endsWith('reply.js')) || f.url.includes('fast-json-stringify'),
  ],
  ['row reads and result view', (f) => /result-view|search-rows|candidate-document/.test(f.url)],
  ['rest of the engine', (f) => f.url.includes('/engine/')],
  ['service layer', (f) => f.url.includes('/service/')],
  ['CORS', (f) => f.url.includes('@fastify/cors')],
  ['metrics', (f) => f.url.includes('prom-client') || f.url.endsWith('/metrics.js')],
  ["GoDB's hooks and guards", (f) => f.url.includes('/transport/http/')],
  ['Fastify', (f) => /\/(fastify|find-my-way|avvio)\//.test(f.url)],
  ["Node's HTTP and streams", (f) => f.url.startsWith('node:')],
];
const byPhase = new Map<string, number>();
const self = new Map<string, number>();
const inclusive = new Map<string, number>();
let total = 0;
let started = false;
profile.samples.forEach((id, i) => {
  const frames = stackOf(id);
  if (!started) started = frames.some((f) => /service\/search\/search-vector/.test(f.url));
  if (!started) return;
  const us = profile.timeDeltas[i]!;
  const top = frames[0]!;
  if (top.functionName !== '(idle)') {
    const phase = phases.find(([, test]) => frames.some(test))?.[0] ?? (top.url === '' ? top.functionName : 'other');
    byPhase.set(phase, (byPhase.get(phase) ?? 0) + us);
  }
  const key = where(top.url, top.functionName);
  self.set(key, (self.get(key) ?? 0) + us);
  total += us;
  // Inclusive: each place once per sample.
  for (const place of new Set(frames.map((f) => where(f.url, f.functionName)))) {
    inclusive.set(place, (inclusive.get(place) ?? 0) + us);
  }
});
const idle = self.get('(idle)') ?? 0;
const busy = total - idle;
const rows = [...self.entries()]
  .filter(([key]) => key !== '(idle)')
  .sort((a, b) => b[1] - a[1])
  .slice(0, 25)
  .map(([key, us]) => ({
    where: key,
    'self % of busy': ((100 * us) / busy).toFixed(1),
    'inclusive % of busy': ((100 * (inclusive.get(key) ?? 0)) / busy).toFixed(1),
    'µs per query': (us / served).toFixed(0),
  }));
rmSync(dataDir, { recursive: true, force: true });
process.stdout.write(`\n${n} × ${dims} f16 vectors, top ${k}, one client, ${seconds} s\n`);
table([
  { path: 'raw usearch, 1 thread (in the client)', QPS: Math.round(rawQps), 'ms each': (1000 / rawQps).toFixed(3) },
  { path: 'GoDB over HTTP', QPS: Math.round(godbQps), 'ms each': (1000 / godbQps).toFixed(3) },
  { path: '/healthz over HTTP', QPS: Math.round(healthQps), 'ms each': (1000 / healthQps).toFixed(3) },
]);
process.stdout.write(
  `GoDB ÷ raw usearch: ${(godbQps / rawQps).toFixed(2)}; engine time_taken ${(engineMs / searches).toFixed(3)} ms; ` +
    `server busy ${((100 * busy) / total).toFixed(0)} % of the query phase, ${(busy / served).toFixed(0)} µs per query\n\n`,
);
table(
  [...byPhase.entries()]
    .sort((a, b) => b[1] - a[1])
    .map(([phase, us]) => ({ 'what the server thread does': phase, share: `${((100 * us) / busy).toFixed(1)} %` })),
);
process.stdout.write('\nBy where the code lives (self time; inclusive counts a place once per sample)\n');
table(rows);
if (compared)
  process.stdout.write(
    `\nBefore/after, one client, alternating 1 s turns: ${Math.round(compared.before)} QPS (BENCH_BEFORE_MAIN) → ` +
      `${Math.round(compared.after)} QPS (this build), × ${(compared.after / compared.before).toFixed(2)}\n`,
  );
process.stdout.write(`\nProfile: ${join(profileDir, file)}\n`);
