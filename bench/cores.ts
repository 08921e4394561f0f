// npm run bench:cores — does GoDB get faster when the machine gets bigger (issue #40)? One data folder (BENCH_VECTORS
// (100,000) client vectors of 128 numbers in an f16 collection; BENCH_DOCS (30,000) Zipf documents embedded with
// glove-100 for text, phrase and hybrid), served in turn by the server pinned to one core (`taskset -c 0`), to two
// (`taskset -c 0,1`), to two with SEARCH_THREADS=1 (no search workers) and to two with SEARCH_THREADS=2 (two search
// workers, decision 0051), each setup BENCH_ROUNDS (2) times in turn, the best round counting; BENCH_KINDS (e.g.
// `vector`) measures only some kinds. Beside QPS, the server's main-thread and process CPU per query. This process is the load generator (autocannon: a closed loop of BENCH_CLIENTS (8) connections for
// BENCH_SECONDS (5) per kind, after 2 s unmeasured), unpinned: on a 2-core machine it shares the cores with the
// server, so the 2-core rows measure the server's scaling together with its client's cost. Raw usearch (the same
// vectors and HNSW parameters, one thread, in this process) is the floor the vector rows are divided by. About
// 9 minutes on 2 shared cores.
import autocannon from 'autocannon';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Agent } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Index, MetricKind, ScalarKind } from 'usearch';
import { startServerProcess, type ServerProcess } from '../e2e/support/server-process.js';
import { random, zipfDocuments, zipfWord } from './engine-fixture.js';
import { caveat, httpRequest, jsonCall, saveResults, table, unthrottledServerEnv } from './support.js';
import { clusteredVectors, row, rowJson } from './vector-data.js';

const vectors = Number(process.env.BENCH_VECTORS ?? 100_000);
const docs = Number(process.env.BENCH_DOCS ?? 30_000);
const clients = Number(process.env.BENCH_CLIENTS ?? 8);
const seconds = Number(process.env.BENCH_SECONDS ?? 5);
/** Each setup is served this many times, in turn (1 core, 2 cores, …, then again): the best round of each counts. */
const rounds = Number(process.env.BENCH_ROUNDS ?? 2);
const dims = 128;
const k = 10;
/** BENCH_STORAGE: the vector collection's storage kind (f16; f32 and i8 are pooled alike, b1 stays on the main thread). */
const storage = (process.env.BENCH_STORAGE ?? 'f16') as 'f32' | 'f16' | 'i8';
const scalar = { f32: ScalarKind.F32, f16: ScalarKind.F16, i8: ScalarKind.I8 }[storage];
const hnsw = { m: 16, ef_construction: 200, ef_search: 100 };
const model = 'glove-100';

caveat();
process.stdout.write(
  `${vectors} × ${dims} ${storage} vectors, ${docs} documents (glove-100), ${clients} clients × ${seconds} s per kind\n`,
);
const { data, queries } = clusteredVectors(vectors, 200, dims);
const env = {
  ...unthrottledServerEnv,
  MODEL_CACHE_DIR: join(tmpdir(), 'godb-test-model-cache'),
  DEFAULT_EMBEDDING_MODEL: model,
};
const dataDir = mkdtempSync(join(tmpdir(), 'godb-bench-cores-'));
const agent = new Agent({ keepAlive: true, maxSockets: 4 });
let server: ServerProcess = await startServerProcess(env, dataDir);
let token = '';
const call = (method: string, path: string, body?: string) =>
  jsonCall(server.baseUrl, agent, token, method, path, body);
const credentials = { email: `bench-${randomUUID()}@example.com`, password: 'password-1234' };
await call('POST', '/auth/register', JSON.stringify({ ...credentials, tenant_id: randomUUID() }));
const login = async () => {
  token = '';
  token = (await call('POST', '/auth/login', JSON.stringify(credentials))).token as string;
};
await login();

let t = performance.now();
await call(
  'POST',
  '/api/v1/collections',
  JSON.stringify({ name: 'vectors', vectors: { v: { dimensions: dims, distance: 'cosine', storage, hnsw } } }),
);
for (let from = 0; from < vectors; from += 1000) {
  const batch: string[] = [];
  for (let i = from; i < Math.min(vectors, from + 1000); i += 1)
    batch.push(`{"id":"v-${i}","primary_table":"vectors","vector":${rowJson(data, i)}}`);
  await call('POST', '/api/v1/documents/batch', `[${batch.join(',')}]`);
}
const next = random(5);
for (let i = 0; i < docs; i += 2000)
  await call(
    'POST',
    '/api/v1/documents/batch',
    JSON.stringify(zipfDocuments(next, i, Math.min(2000, docs - i), model)),
  );
process.stdout.write(`Imported in ${((performance.now() - t) / 1000).toFixed(0)} s\n`);

const query = [40, 400, 4000].map(zipfWord).join(' ');
const phrase = [4, 40].map(zipfWord).join(' ');
const vectorBodies = Array.from({ length: 200 }, (_v, q) =>
  JSON.stringify({
    primary_table: 'vectors',
    vector_name: 'v',
    vector: JSON.parse(rowJson(queries, q)),
    threshold: 0,
    limit: k,
  }),
);
const allKinds = [
  { name: 'vector', path: '/api/v1/search/vector', bodies: vectorBodies },
  {
    name: 'text match',
    path: '/api/v1/search/text',
    bodies: [JSON.stringify({ query, query_type: 'match', limit: k })],
  },
  { name: 'phrase', path: '/api/v1/search/text', bodies: [JSON.stringify({ query: phrase, limit: k })] },
  { name: 'hybrid', path: '/api/v1/search/hybrid', bodies: [JSON.stringify({ query, limit: k })] },
];
/** BENCH_KINDS (e.g. `vector`): only these kinds are measured (every kind still settles before). */
const measuredKinds = process.env.BENCH_KINDS?.split(',');
const kinds = allKinds.filter((kind) => !measuredKinds || measuredKinds.includes(kind.name));
/** Until the HNSW graphs hold every vector and the BM25 index is loaded: nothing in the background while measuring. */
async function settle(): Promise<void> {
  const started = performance.now();
  for (;;) {
    const s = (await call('GET', '/api/v1/collections/vectors')).vector_stats as Record<string, { index: string }>;
    const lag = ((await call('GET', '/readyz')) as { vector_indexes?: { lag: number } }).vector_indexes?.lag ?? 0;
    if (s.v!.index === 'ready' && lag === 0) break;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  for (const kind of allKinds) await call('POST', kind.path, kind.bodies[0]);
  while (((await call('POST', allKinds[1]!.path, allKinds[1]!.bodies[0])).time_taken as number) > 20)
    await new Promise((resolve) => setTimeout(resolve, 250));
  // Search workers build their own text indexes on their first text queries (decision 0078), the main thread
  // answering meanwhile: until a round of concurrent text queries leaves none building and all were the workers'.
  for (let tries = 0; tries < 240; tries += 1) {
    const before = await loopDelay();
    if (before.threads === 0) break;
    await Promise.all(Array.from({ length: 4 }, () => call('POST', allKinds[1]!.path, allKinds[1]!.bodies[0])));
    const after = await loopDelay();
    if (after.building === 0 && after.pooled - before.pooled === 4) break;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  process.stdout.write(`  settled in ${((performance.now() - started) / 1000).toFixed(0)} s\n`);
}
await settle();
await server.stop();

// Raw usearch, one thread, in this process: the same normalised vectors and parameters (the server is stopped).
t = performance.now();
const raw = new Index({
  dimensions: dims,
  metric: MetricKind.Cos,
  quantization: scalar,
  connectivity: hnsw.m,
  expansion_add: hnsw.ef_construction,
  expansion_search: hnsw.ef_search,
  multi: false,
});
const normalised = new Float32Array(data.matrix.length);
for (let i = 0; i < vectors; i += 1)
  normalised.set(
    row(data, i).map((x) => x / data.norms[i]!),
    i * dims,
  );
raw.add(
  BigUint64Array.from({ length: vectors }, (_v, i) => BigInt(i)),
  normalised,
  0,
);
const queryVectors = Array.from({ length: 200 }, (_v, q) => row(queries, q).slice());
let done = 0;
t = performance.now();
while (performance.now() - t < seconds * 1000) raw.search(queryVectors[done++ % 200]!, k, 1);
const rawQps = done / ((performance.now() - t) / 1000);
process.stdout.write(`Raw usearch, 1 thread: ${Math.round(rawQps)} QPS\n`);

const setups = [
  { name: '1 core', cpus: '0', env: {} },
  { name: '2 cores', cpus: '0,1', env: {} },
  { name: '2 cores, SEARCH_THREADS=1', cpus: '0,1', env: { SEARCH_THREADS: '1' } },
  // The default makes no search workers on 2 cores (decision 0051): two of them, asked for.
  { name: '2 cores, SEARCH_THREADS=2', cpus: '0,1', env: { SEARCH_THREADS: '2' } },
] as const;
type Measured = {
  setup: string;
  kind: string;
  qps: number;
  p50: number;
  p99: number;
  errors: number;
  loopP99: number;
  loopMax: number;
  /** Share of the measured requests answered by a search worker. */
  byWorkers: number;
  /** CPU µs per request of the server's main thread, and of the whole server process. */
  mainUs: number;
  processUs: number;
};
/**
 * The server's event-loop delay (ms) since the previous scrape of /metrics (godb_event_loop_delay_*), and the
 * searches its search workers answered since start (godb_search_pool; 0 without workers).
 */
async function loopDelay(): Promise<{ p99: number; max: number; pooled: number; threads: number; building: number }> {
  const text = (await httpRequest(`${server.baseUrl}/metrics`, { method: 'GET', agent, headers: {} })).body;
  const gauge = (line: RegExp) => 1000 * Number(line.exec(text)?.[1] ?? NaN);
  return {
    p99: gauge(/^godb_event_loop_delay_seconds\{quantile="0\.99"\} ([\d.e+-]+)$/m),
    max: gauge(/^godb_event_loop_delay_max_seconds ([\d.e+-]+)$/m),
    pooled: Number(/^godb_search_pool\{what="answered"\} (\d+)$/m.exec(text)?.[1] ?? 0),
    threads: Number(/^godb_search_pool\{what="threads"\} (\d+)$/m.exec(text)?.[1] ?? 0),
    building: Number(/^godb_search_pool\{what="building"\} (\d+)$/m.exec(text)?.[1] ?? 0),
  };
}
/**
 * CPU milliseconds the server used so far (user + system, from /proc): its main thread (the one that parses HTTP)
 * and the whole process. CPU time per query is much less sensitive than QPS to other processes on the machine.
 */
function cpuMs(pid: number): { main: number; all: number } {
  const ticks = (path: string) => {
    const fields = readFileSync(path, 'utf8').split(') ')[1]!.split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime, stime in 1/100 s (USER_HZ)
  };
  return { main: ticks(`/proc/${pid}/task/${pid}/stat`), all: ticks(`/proc/${pid}/stat`) };
}
const measured: Measured[] = [];
for (const setup of Array.from({ length: rounds }, () => setups).flat()) {
  process.stdout.write(`${setup.name}\n`);
  server = await startServerProcess({ ...env, ...setup.env }, dataDir, { prefix: ['taskset', '-c', setup.cpus] });
  await login();
  await settle();
  for (const kind of kinds) {
    const load = (duration: number) =>
      autocannon({
        url: `${server.baseUrl}${kind.path}`,
        connections: clients,
        duration,
        requests: kind.bodies.map((body) => ({
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
          body,
        })),
      });
    // Unmeasured: the first queries of a kind read what it keeps in memory (vector copies, rows) and warm the code.
    await load(2);
    const before = await loopDelay();
    const cpuBefore = cpuMs(server.process.pid!);
    const result = await load(seconds);
    const cpuAfter = cpuMs(server.process.pid!);
    const loop = await loopDelay();
    const requests = Math.max(1, result.requests.total);
    measured.push({
      mainUs: ((cpuAfter.main - cpuBefore.main) * 1000) / requests,
      processUs: ((cpuAfter.all - cpuBefore.all) * 1000) / requests,
      byWorkers: (loop.pooled - before.pooled) / Math.max(1, result.requests.total),
      loopP99: loop.p99,
      loopMax: loop.max,
      setup: setup.name,
      kind: kind.name,
      qps: result.requests.average,
      p50: result.latency.p50,
      p99: result.latency.p99,
      errors: result.non2xx + result.errors,
    });
  }
  await server.stop();
}
agent.destroy();
rmSync(dataDir, { recursive: true, force: true });

/** The best round of a setup and kind. */
const at = (setup: string, kind: string) =>
  measured.filter((m) => m.setup === setup && m.kind === kind).sort((a, b) => b.qps - a.qps)[0]!;
const rows = setups
  .flatMap((setup) => kinds.map((kind) => at(setup.name, kind.name)))
  .map((m) => ({
    server: m.setup,
    search: m.kind,
    QPS: Math.round(m.qps),
    'p50 ms': m.p50,
    'p99 ms': m.p99,
    errors: m.errors,
    'event loop p99 ms': m.loopP99.toFixed(1),
    'event loop max ms': m.loopMax.toFixed(1),
    'by workers': `${Math.round(m.byWorkers * 100)} %`,
    'main thread CPU µs/query': Math.round(m.mainUs),
    'process CPU µs/query': Math.round(m.processUs),
  }));
const ratios = kinds.map((kind) => {
  const one = at('1 core', kind.name).qps;
  const two = at('2 cores', kind.name).qps;
  const single = at('2 cores, SEARCH_THREADS=1', kind.name).qps;
  const workers = at('2 cores, SEARCH_THREADS=2', kind.name).qps;
  return {
    search: kind.name,
    '2 cores ÷ 1 core (goal ≥ 1.7)': (two / one).toFixed(2),
    '2 cores SEARCH_THREADS=1 ÷ 1 core': (single / one).toFixed(2),
    '2 cores SEARCH_THREADS=2 ÷ SEARCH_THREADS=1': (workers / single).toFixed(2),
    '1 core ÷ raw usearch 1 thread (goal ≥ 0.5)': kind.name === 'vector' ? (one / rawQps).toFixed(2) : '-',
    '2 cores ÷ raw usearch 1 thread': kind.name === 'vector' ? (two / rawQps).toFixed(2) : '-',
  };
});
process.stdout.write(
  `\nRaw usearch (${storage}, top ${k}, 1 thread, in the load generator's process): ${Math.round(rawQps)} QPS\n\n`,
);
process.stdout.write(`Best of ${rounds} rounds per setup and kind (each round's QPS in bench/results/cores.json)\n`);
table(rows);
process.stdout.write('\n');
table(ratios);
const named = measuredKinds ? `cores-${measuredKinds.join('-').replace(/ /g, '-')}` : 'cores';
saveResults(storage === 'f16' ? named : `${named}-${storage}`, {
  vectors,
  dimensions: dims,
  storage,
  hnsw,
  documents: docs,
  clients,
  seconds,
  raw_usearch_qps: rawQps,
  load_generator: 'autocannon in the benchmark process, unpinned (shares the 2 cores with the server)',
  rounds,
  search: rows,
  ratios,
  every_round: measured,
});
