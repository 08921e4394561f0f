// npm run bench:scale — one node at a million documents (issue #16). Deterministic synthetic data: BENCH_DOCS
// (1,000,000) documents, each with a 512-d clustered vector given by the client (100 clusters, each spread along a
// 48-d subspace as embeddings are: see embeddingLikeVectors), about 60 words of Zipf-distributed
// text, a tag and a numeric field; imported as NDJSON over HTTP into a real server process, then measured in one
// run: import rate, peak RSS and data folder size; vector top 10 (recall@10 against brute force on BENCH_QUERIES
// queries, the most QPS 4 clients reach, p50/p99 at a paced 500 and 1,000 req/s) beside raw usearch on the server's
// own index file (one query per call, and four per call on every core); the most vector QPS after a restart with
// SEARCH_THREADS=1 (each query searched alone) and with the default (concurrent queries together); filtered vector search at 1 % and 10 %; text match, phrase and hybrid at a paced 500 req/s; a
// clean restart and a kill -9 restart to serving, with every acknowledged write checked. Results are merged into
// bench/results/scale.json by size, so that runs at 100k and 1M sit side by side on the Performance page.
import { Agent } from 'node:http';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Index, MetricKind, ScalarKind } from 'usearch';
import { startServerProcess, type ServerProcess } from '../e2e/support/server-process.js';
import { random, zipfText, zipfWord } from './engine-fixture.js';
import { caveat, closedLoopRate, httpRequest, machine, saveResults, table } from './support.js';
import { embeddingLikeVectors, groundTruth, recall, row, rowJson } from './vector-data.js';

const total = Number(process.env.BENCH_DOCS ?? 1_000_000);
const queryCount = Number(process.env.BENCH_QUERIES ?? 200);
const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const dims = 512;
const k = 10;
const collection = 'scale';
const hnsw = { m: 16, ef_construction: 200, ef_search: 100 };
/** metadata.bucket = i % 100: `bucket < 10` allows 10 % of the documents, `bucket < 1` 1 %. */
const bucketOf = (i: number) => i % 100;

caveat();
process.stdout.write(
  `Generating ${total.toLocaleString('en')} documents (512-d clustered vectors like embeddings, Zipf text)…\n`,
);
let t = performance.now();
const { data, queries } = embeddingLikeVectors(total, queryCount, dims);
/** Document i's text, made again on demand from its own seed (a million strings would hold 400 MB). */
const textOf = (i: number) => {
  const next = random(1_000_003 + i);
  return zipfText(next, 50 + Math.floor(next() * 21));
};
process.stdout.write(`  in ${((performance.now() - t) / 1000).toFixed(1)} s\n`);
const docLine = (i: number) =>
  `{"id":"s-${i}","primary_table":"${collection}","title":"document ${i}","content":"${textOf(i)}","tags":["t${i % 20}"],"metadata":{"bucket":${bucketOf(i)},"rank":${i}},"vector":${rowJson(data, i)}}\n`;

t = performance.now();
const truth = {
  none: groundTruth(data, queries, k),
  '10 %': groundTruth(data, queries, k, (i) => bucketOf(i) < 10),
  '1 %': groundTruth(data, queries, k, (i) => bucketOf(i) < 1),
};
process.stdout.write(`Brute-force top ${k} of every query in ${((performance.now() - t) / 1000).toFixed(1)} s\n\n`);

// Each phase's table is printed as soon as it is measured and the run so far saved (a run at 1M takes hours; one
// stopped in its restore keeps its import, search and restart figures).
const run: {
  documents: number;
  machine: ReturnType<typeof machine>;
  import: Record<string, string | number>;
  search: Record<string, string | number>[];
  restart: Record<string, string | number>[];
  snapshot?: Record<string, string | number>[];
  incomplete?: string;
} = { documents: total, machine: machine(), import: {}, search: [], restart: [], incomplete: 'import' };
/** Merges this run, as measured so far, into bench/results/scale.json by size (the Performance page's figures). */
function record(next: string | undefined): void {
  if (next === undefined) delete run.incomplete;
  else run.incomplete = next;
  const resultsFile = new URL('./results/scale.json', import.meta.url);
  const previous = existsSync(resultsFile)
    ? (JSON.parse(readFileSync(resultsFile, 'utf8')) as { results: { runs: { documents: number }[] } }).results.runs
    : [];
  const runs = [...previous.filter((r) => r.documents !== total), run].sort((a, b) => a.documents - b.documents);
  saveResults('scale', { runs });
}

const dataDir = mkdtempSync(join(tmpdir(), 'godb-bench-scale-'));
const env = {
  RATE_LIMIT_RPS: '1000000',
  RATE_LIMIT_BURST: '1000000',
  MAX_CONCURRENT_OPERATIONS: '1000',
  LOG_LEVEL: 'error',
  MODEL_CACHE_DIR: join(tmpdir(), 'godb-test-model-cache'),
  // Float32 copies of a million 512-d vectors take 2 GB: the budget holds them, as an operator at this size sets.
  VECTOR_CACHE_MB: String(Math.max(1024, Math.ceil((total * dims * 4 * 1.2) / 2 ** 20))),
};
let server = await startServerProcess(env, dataDir);
const agent = new Agent({ keepAlive: true, maxSockets: 64 });
let token = '';

function send(method: string, path: string, body?: string | AsyncIterable<string>, type = 'application/json') {
  return httpRequest(`${server.baseUrl}${path}`, {
    method,
    agent,
    body,
    headers: {
      ...(body !== undefined && { 'content-type': type }),
      ...(token && { authorization: `Bearer ${token}` }),
    },
  });
}
async function call(method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
  const res = await send(method, path, body === undefined ? undefined : JSON.stringify(body));
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${res.body.slice(0, 500)}`);
  return JSON.parse(res.body) as Record<string, unknown>;
}

/** Resident memory of the server process now and at its peak (Linux /proc), in MB. */
function rss(process: ServerProcess): { now: number; peak: number } {
  const status = readFileSync(`/proc/${process.process.pid}/status`, 'utf8');
  const field = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+)`).exec(status)?.[1] ?? 0) / 1024;
  return { now: field('VmRSS'), peak: field('VmHWM') };
}
/** Every file under a folder, with its size. */
function* filesUnder(dir: string): Generator<{ path: string; size: number }> {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    const s = statSync(path);
    if (s.isDirectory()) yield* filesUnder(path);
    else yield { path, size: s.size };
  }
}
const folderBytes = (dir: string) => [...filesUnder(dir)].reduce((sum, f) => sum + f.size, 0);

const credentials = { email: `bench-${randomUUID()}@example.com`, password: 'password-1234' };
await call('POST', '/auth/register', { ...credentials, tenant_id: randomUUID() });
token = (await call('POST', '/auth/login', credentials)).token as string;
await call('POST', '/api/v1/collections', {
  name: collection,
  vectors: { v: { dimensions: dims, distance: 'cosine', storage: 'f16', hnsw } },
});

// ── Import: one NDJSON stream of every document, answered line by line ─────────────────────────────────────────
process.stdout.write('Importing over HTTP (NDJSON, one stream)…\n');
async function* lines(from: number, to: number) {
  for (let i = from; i < to; i += 200) {
    let piece = '';
    for (let j = i; j < Math.min(to, i + 200); j += 1) piece += docLine(j);
    yield piece;
    if (i % 100_000 === 0 && i > 0) process.stdout.write(`  ${i.toLocaleString('en')} sent\n`);
  }
}
t = performance.now();
const imported = await send('POST', '/api/v1/documents/import', lines(0, total), 'application/x-ndjson');
const importSeconds = (performance.now() - t) / 1000;
const failedLines = imported.body.split('\n').filter((l) => l.includes('"success":false'));
if (imported.status !== 200 || failedLines.length > 0)
  throw new Error(`import: ${imported.status} ${failedLines.slice(0, 3).join('\n') || imported.body.slice(0, 500)}`);
t = performance.now();
type VectorStats = { vectors: number; indexed: number; index: string; memory_bytes: number; disk_bytes: number };
const stats = async () =>
  ((await call('GET', `/api/v1/collections/${collection}`)).vector_stats as Record<string, VectorStats>).v!;
// Acknowledged lines are stored and searchable at once (vectors not in the HNSW graph yet are compared exactly);
// the graph takes them in the background: this is how long it took to hold them all.
// Polled on /readyz (the vectors waiting over all indexes): collection info counts the documents the caller may
// read, a scan of the collection that would take the thread from the indexing it waits for.
const lag = async () =>
  (JSON.parse((await send('GET', '/readyz')).body) as { vector_indexes?: { lag: number } }).vector_indexes?.lag ?? 0;
while ((await lag()) > 0) await new Promise((r) => setTimeout(r, 1000));
const indexCatchUp = (performance.now() - t) / 1000;
const afterImport = rss(server);
const info = await stats();
if (info.vectors !== total || info.indexed !== info.vectors)
  throw new Error(`after the import: ${info.vectors} vectors, ${info.indexed} in the graph, of ${total}`);
const importRow: Record<string, string | number> = {
  documents: total,
  'import docs/s': Math.round(total / importSeconds),
  'import s': importSeconds.toFixed(1),
  'index caught up after s': indexCatchUp.toFixed(1),
  'peak RSS MB': Math.round(afterImport.peak),
  'RSS MB': Math.round(afterImport.now),
  'index + copies MB': Math.round(info.memory_bytes / 2 ** 20),
  'data folder MB': Math.round(folderBytes(dataDir) / 2 ** 20),
};
process.stdout.write('\nImport\n');
table([importRow]);
run.import = importRow;
record('searches');

// ── Searches ───────────────────────────────────────────────────────────────────────────────────────────────────
const vectorBody = (q: number, filter?: number) =>
  JSON.stringify({
    vector: JSON.parse(rowJson(queries, q)) as number[],
    primary_table: collection,
    limit: k,
    threshold: 0,
    ...(filter !== undefined && { filters: [{ field: 'metadata.bucket', operator: 'lt', value: filter }] }),
  });
const idsOf = (body: string) =>
  ((JSON.parse(body) as { results: { document_id: string }[] }).results ?? []).map((r) =>
    Number(r.document_id.slice(2)),
  );
/** Match queries: a common, an ordinary and a rare word; phrases: two neighbouring words of a document. */
const textNext = random(99);
const textQueries = Array.from({ length: 200 }, () =>
  [40, 400, 4000].map((r) => zipfWord(Math.max(1, Math.round(r * (0.5 + textNext()))))).join(' '),
);
const phraseQueries = Array.from({ length: 200 }, () => {
  const words = textOf(Math.floor(textNext() * total)).split(' ');
  const at = Math.floor(textNext() * (words.length - 1));
  return `${words[at]} ${words[at + 1]}`;
});

interface Case {
  readonly name: string;
  readonly path: string;
  body(i: number): string;
}
const cases: Record<string, Case> = {
  vector: { name: 'vector', path: '/api/v1/search/vector', body: (i) => vectorBody(i % queryCount) },
  'vector 10 %': { name: 'vector 10 %', path: '/api/v1/search/vector', body: (i) => vectorBody(i % queryCount, 10) },
  'vector 1 %': { name: 'vector 1 %', path: '/api/v1/search/vector', body: (i) => vectorBody(i % queryCount, 1) },
  match: {
    name: 'text match',
    path: '/api/v1/search/text',
    body: (i) =>
      JSON.stringify({ query: textQueries[i % 200], query_type: 'match', limit: k, primary_table: collection }),
  },
  phrase: {
    name: 'text phrase',
    path: '/api/v1/search/text',
    body: (i) => JSON.stringify({ query: phraseQueries[i % 200], limit: k, primary_table: collection }),
  },
  hybrid: {
    name: 'hybrid',
    path: '/api/v1/search/hybrid',
    body: (i) =>
      JSON.stringify({
        query: textQueries[i % 200],
        vector: JSON.parse(rowJson(queries, i % queryCount)) as number[],
        primary_table: collection,
        limit: k,
      }),
  },
};

async function ask(c: Case, i: number): Promise<string> {
  const res = await send('POST', c.path, c.body(i));
  if (res.status !== 200) throw new Error(`${c.name}: ${res.status} ${res.body.slice(0, 300)}`);
  return res.body;
}
/** The most queries per second `clients` connections reach, each sending its next query when answered. */
const maxQps = (c: Case, clients = 4) =>
  closedLoopRate(clients, seconds, async (w, turn) => void (await ask(c, w + turn * clients)));
/**
 * Latency at a steady rate: query i is sent at start + i / rate whether or not earlier ones were answered (an
 * open loop), and timed from when it was due, so queueing shows in the percentiles.
 */
async function paced(c: Case, rate: number): Promise<{ p50: number; p99: number; qps: number }> {
  const count = rate * seconds;
  const latencies: number[] = [];
  const pending: Promise<void>[] = [];
  const start = performance.now();
  for (let i = 0; i < count;) {
    const now = performance.now();
    for (; i < count && start + (i * 1000) / rate <= now; i += 1) {
      const due = start + (i * 1000) / rate;
      pending.push(ask(c, i).then(() => void latencies.push(performance.now() - due)));
    }
    await new Promise((r) => setTimeout(r, 1));
  }
  await Promise.all(pending);
  const elapsed = (performance.now() - start) / 1000;
  latencies.sort((a, b) => a - b);
  const at = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))]!;
  return { p50: at(0.5), p99: at(0.99), qps: count / elapsed };
}

/**
 * When the goal's rate is over this machine's capacity, the latency a user sees below it: paced at half the most QPS
 * measured (rounded down to 10/s), so the percentiles show the service time rather than a growing queue.
 */
async function atHalfMax(c: Case, max: number, row: Record<string, string | number>): Promise<void> {
  if (max >= 500) return;
  const rate = Math.max(10, Math.floor(max / 20) * 10);
  const p = await paced(c, rate);
  row['p50/p99 ms at ½ max QPS'] = `${p.p50.toFixed(1)} / ${p.p99.toFixed(1)} at ${rate}/s`;
}

// The in-memory BM25 index is built on the first text query, in the background, while FTS5 ranks meanwhile (a common
// word then costs tens of milliseconds or more): ask once, then wait until the text index's memory in /metrics is
// there and stops growing (a match query's time is no test: at a million documents a common word takes more than a
// few milliseconds even from the built index), and say how long it took.
const textIndexBytes = async () =>
  Number(/godb_memory_bytes\{kind="text_index"\} (\d+)/.exec((await send('GET', '/metrics')).body)?.[1] ?? 0);
t = performance.now();
await ask(cases.match!, 0);
for (let last = -1; performance.now() - t < 900_000;) {
  await new Promise((r) => setTimeout(r, 1000));
  const bytes = await textIndexBytes();
  if (bytes > 0 && bytes === last) break;
  last = bytes;
}
const textWarm = (performance.now() - t) / 1000;
importRow['text index warm after s'] = textWarm.toFixed(1);
process.stdout.write(`Text index warm after ${textWarm.toFixed(1)} s\n`);
process.stdout.write(
  '\nSearch (top 10 over HTTP; recall against brute force; goal: p99 ≤ 10 ms vector, ≤ 20 ms text at 500/s)\n',
);

const searchRows: Record<string, string | number>[] = [];
run.search = searchRows;
for (const [filter, c] of [
  ['none', cases.vector!],
  ['10 %', cases['vector 10 %']!],
  ['1 %', cases['vector 1 %']!],
] as const) {
  const found: number[][] = [];
  for (let q = 0; q < queryCount; q += 1) found.push(idsOf(await ask(c, q)));
  const max = await maxQps(c);
  const row: Record<string, string | number> = {
    search: c.name,
    'recall@10': recall(found, truth[filter]).toFixed(4),
    'max QPS (4 clients)': Math.round(max),
  };
  for (const rate of filter === 'none' ? [500, 1000] : [500]) {
    if (max < rate) {
      row[`p50/p99 ms at ${rate}/s`] = 'over capacity';
      continue;
    }
    const p = await paced(c, rate);
    row[`p50/p99 ms at ${rate}/s`] = `${p.p50.toFixed(1)} / ${p.p99.toFixed(1)}`;
  }
  await atHalfMax(c, max, row);
  searchRows.push(row);
  table([row]);
  record('searches');
}
// The recall a user buys with more search effort: ef_search 200 on the same graph (a setting of the collection,
// changed live), then back to the run's 100.
{
  const setEf = (ef: number) =>
    call('PATCH', `/api/v1/collections/${collection}`, { vectors: { v: { hnsw: { ef_search: ef } } } });
  await setEf(200);
  const c: Case = { ...cases.vector!, name: 'vector, ef_search 200' };
  const found: number[][] = [];
  for (let q = 0; q < queryCount; q += 1) found.push(idsOf(await ask(c, q)));
  const row: Record<string, string | number> = {
    search: c.name,
    'recall@10': recall(found, truth.none).toFixed(4),
    'max QPS (4 clients)': Math.round(await maxQps(c)),
  };
  await setEf(hnsw.ef_search);
  searchRows.push(row);
  table([row]);
  record('searches');
}
for (const c of [cases.match!, cases.phrase!, cases.hybrid!]) {
  const max = await maxQps(c);
  const row: Record<string, string | number> = {
    search: c.name,
    'recall@10': '-',
    'max QPS (4 clients)': Math.round(max),
  };
  if (max < 500) row['p50/p99 ms at 500/s'] = 'over capacity';
  else {
    const p = await paced(c, 500);
    row['p50/p99 ms at 500/s'] = `${p.p50.toFixed(1)} / ${p.p99.toFixed(1)}`;
  }
  await atHalfMax(c, max, row);
  searchRows.push(row);
  table([row]);
  record('searches');
}

// ── Restarts ───────────────────────────────────────────────────────────────────────────────────────────────────
/** Seconds until a vector and a text query answer with results. */
async function untilServing(): Promise<number> {
  const started = performance.now();
  for (const c of [cases.vector!, cases.match!])
    for (;;) {
      const res = await send('POST', c.path, c.body(0));
      if (res.status === 200 && idsOf(res.body).length > 0) break;
      if (res.status !== 503)
        throw new Error(`${c.name} after a restart or restore: ${res.status} ${res.body.slice(0, 300)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  return (performance.now() - started) / 1000;
}
/**
 * Seconds from starting the server process until it answers a vector and a text query (text is ranked through FTS5
 * until the tenant's in-memory index is back), then until that index is back in memory too — read back from its
 * checkpoint and caught up, or built from the store — and how it came back.
 */
async function startAndServe(): Promise<{ serving: number; text: number; how: string }> {
  const started = performance.now();
  server = await startServerProcess(env, dataDir);
  await untilServing();
  const serving = (performance.now() - started) / 1000;
  for (;;) {
    const ready = JSON.parse((await send('GET', '/readyz')).body) as {
      loading: { kind: string }[];
      text_indexes?: { checkpoint: number; rebuild: number };
    };
    const opened = ready.text_indexes ?? { checkpoint: 0, rebuild: 0 };
    if (opened.checkpoint + opened.rebuild > 0 && !ready.loading.some((l) => l.kind === 'text_index')) {
      const how = opened.checkpoint > 0 ? 'checkpoint' : 'rebuilt';
      return { serving, text: (performance.now() - started) / 1000, how };
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}
t = performance.now();
await server.stop();
const cleanStop = (performance.now() - t) / 1000;

// Raw usearch on the server's own index file (the same graph and vectors): the HNSW floor. Keys are the document
// vectors' seqs, given in import order from 1, so key − 1 is the document's row.
const indexFile = findLargest(dataDir, '.usearch');
const raw = new Index({
  metric: MetricKind.Cos,
  connectivity: hnsw.m,
  dimensions: dims,
  quantization: ScalarKind.F16,
  expansion_add: hnsw.ef_construction,
  expansion_search: hnsw.ef_search,
  multi: false,
});
raw.load(indexFile);
const rawFound: number[][] = [];
t = performance.now();
for (let q = 0; q < queryCount; q += 1) {
  const { keys } = raw.search(queries.matrix.slice(q * dims, (q + 1) * dims), k, 1);
  rawFound.push(Array.from(keys, (key) => Number(key) - 1));
}
const rawQps = queryCount / ((performance.now() - t) / 1000);
// The same queries four at a time on every core: the floor for a server that batches concurrent queries.
const cores = availableParallelism();
t = performance.now();
for (let q = 0; q < queryCount; q += 4) {
  const n = Math.min(4, queryCount - q);
  raw.search(queries.matrix.slice(q * dims, (q + n) * dims), k, Math.min(n, cores));
}
const rawBatchQps = queryCount / ((performance.now() - t) / 1000);
searchRows.unshift(
  {
    search: 'raw usearch (server index file, 1 thread)',
    'recall@10': recall(rawFound, truth.none).toFixed(4),
    'max QPS (4 clients)': `${Math.round(rawQps)} (1 thread)`,
  },
  {
    search: `raw usearch, 4 queries per call on ${cores} threads`,
    'recall@10': '-',
    'max QPS (4 clients)': `${Math.round(rawBatchQps)} (${cores} threads)`,
  },
);
for (const r of searchRows) for (const key of Object.keys(searchRows[2]!)) r[key] ??= '-';
table(searchRows.slice(0, 2));
record('restarts');

const cleanRestart = await startAndServe();
// kill -9 while a client writes: every write it saw acknowledged must be there after the restart.
const acknowledged: string[] = [];
let writing = true;
const writer = (async () => {
  for (let i = 0; writing; i += 1) {
    const id = `crash-${i}`;
    try {
      const res = await send(
        'POST',
        '/api/v1/documents',
        JSON.stringify({
          id,
          primary_table: collection,
          content: textOf(i % total),
          vector: Array.from(row(data, i % total)),
        }),
      );
      if (res.status === 201 || res.status === 200) acknowledged.push(id);
    } catch {
      return; // the server is gone
    }
  }
})();
await new Promise((r) => setTimeout(r, 3000));
await server.stop('SIGKILL');
writing = false;
await writer;
const crashRestart = await startAndServe();
let missing = 0;
for (const id of acknowledged) {
  const res = await send('GET', `/api/v1/documents/${id}`);
  if (res.status !== 200) missing += 1;
}
// Concurrent queries searched together on every core (the default, on indexes of 250,000 vectors and more) against
// SEARCH_THREADS=1, each query alone on the server thread: the same server restarted once with each, measured once its float32 copies and its text index are
// back in memory (built in the background after a restart, as they were during the run's other searches).
await server.stop();
/** Resolves once the float32 copies and the text index are in memory and their sizes held still for 2 s. */
const derivedSettled = async () => {
  for (let last = '', since = performance.now(); performance.now() - since < 900_000;) {
    await new Promise((r) => setTimeout(r, 2000));
    const metrics = (await send('GET', '/metrics')).body;
    const bytes = ['vector_copies', 'text_index'].map((kind) =>
      Number(new RegExp(`godb_memory_bytes\\{kind="${kind}"\\} (\\d+)`).exec(metrics)?.[1] ?? 0),
    );
    if (bytes.every((b) => b > 0) && bytes.join() === last) return;
    last = bytes.join();
  }
};
/** Vector max QPS of the server started with `extra`, in the same state: warm, nothing else running. */
async function vectorAfterRestart(name: string, extra: Record<string, string>): Promise<void> {
  server = await startServerProcess({ ...env, ...extra }, dataDir);
  await untilServing();
  await derivedSettled();
  const row: Record<string, string | number> = {
    search: name,
    'recall@10': '-',
    'max QPS (4 clients)': Math.round(await maxQps(cases.vector!)),
  };
  for (const key of Object.keys(searchRows[2]!)) row[key] ??= '-';
  searchRows.push(row);
  table([row]);
}
await vectorAfterRestart('vector, SEARCH_THREADS=1 (each query alone), restarted', { SEARCH_THREADS: '1' });
await server.stop();
await vectorAfterRestart(`vector, default (together on ${cores} threads from 250,000 vectors), restarted`, {});
const restartRows = [
  {
    restart: 'clean (SIGTERM, then start)',
    'stop s': cleanStop.toFixed(1),
    'to serving s': cleanRestart.serving.toFixed(1),
    'text index back s': `${cleanRestart.text.toFixed(1)} (${cleanRestart.how})`,
    goal: '≤ 10 s',
  },
  {
    restart: `kill -9 during writes (${acknowledged.length} acknowledged, ${missing} missing)`,
    'stop s': '-',
    'to serving s': crashRestart.serving.toFixed(1),
    'text index back s': `${crashRestart.text.toFixed(1)} (${crashRestart.how})`,
    goal: '≤ 60 s, none missing',
  },
];
process.stdout.write('\nRestart\n');
table(restartRows);
run.restart = restartRows;
record('snapshot and restore');

// ── Snapshot and restore (issue #18): the tenant's snapshot taken on the live node, then restored in its place ───
async function waitForJob(id: string): Promise<void> {
  for (;;) {
    const job = await call('GET', `/api/v1/jobs/${id}`);
    if (job.status === 'done') return;
    if (job.status === 'failed') throw new Error(`job ${id} failed: ${String(job.error)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
process.stdout.write('Snapshot and restore of the tenant…\n');
t = performance.now();
const taken = await call('POST', '/api/v1/snapshots');
await waitForJob(taken.job_id as string);
const snapshotSeconds = (performance.now() - t) / 1000;
const snapshotBytes = [...filesUnder(join(dataDir, 'snapshots'))].reduce((sum, f) => sum + f.size, 0);
process.stdout.write(
  `  snapshot in ${snapshotSeconds.toFixed(1)} s (${Math.round(snapshotBytes / 2 ** 20)} MB); restoring…\n`,
);
t = performance.now();
const restoring = await call('POST', '/api/v1/snapshots/restore', { snapshot_id: taken.snapshot_id });
await waitForJob(restoring.job_id as string);
const restoreSeconds = (performance.now() - t) / 1000;
const restoredServing = await untilServing();
const snapshotRows = [
  {
    'tenant snapshot s': snapshotSeconds.toFixed(1),
    'snapshot MB': Math.round(snapshotBytes / 2 ** 20),
    'tenant restore s': restoreSeconds.toFixed(1),
    'then serving after s': restoredServing.toFixed(1),
  },
];
await server.stop();
agent.destroy();
rmSync(dataDir, { recursive: true, force: true });

process.stdout.write('\nSnapshot and restore (live node, over HTTP)\n');
table(snapshotRows);
run.snapshot = snapshotRows;
record(undefined);

function findLargest(dir: string, suffix: string): string {
  const found = [...filesUnder(dir)].filter((f) => f.path.endsWith(suffix)).sort((x, y) => y.size - x.size)[0];
  if (!found) throw new Error(`no ${suffix} file under ${dir}`);
  return found.path;
}
