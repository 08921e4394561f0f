// npm run bench:search — 100,000 documents (60 words each, Zipf-distributed over 20,000 words); text, vector, hybrid and a 3-stage query pipeline top-10 over HTTP on a real port under load
// (autocannon: the most QPS 10 connections reach; loadtest: p50/p99 at a steady 500 req/s), and the same queries through the engine in-process, as a ratio.
import autocannon from 'autocannon';
import { loadTest, type LoadTestResult } from 'loadtest';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openEngine } from '../server/src/engine/engine.js';
import { hybridSearch } from '../server/src/engine/search/hybrid-search.js';
import { textSearch } from '../server/src/engine/search/text-search.js';
import { vectorSearch } from '../server/src/engine/search/vector-search.js';
import { startServerProcess } from '../e2e/support/server-process.js';
import { benchEngineOptions, random, zipfDocuments, zipfWord } from './engine-fixture.js';
import { caveat, saveResults, table } from './support.js';

const total = Number(process.env.BENCH_DOCS ?? 100_000);
const seconds = Number(process.env.BENCH_SECONDS ?? 10);
/** The goal's load: requests per second, spread over 10 connections. */
const rate = Number(process.env.BENCH_RATE ?? 500);
const model = 'glove-100';
caveat();
const dataDir = mkdtempSync(join(tmpdir(), 'godb-bench-search-'));
const modelCacheDir = join(tmpdir(), 'godb-test-model-cache');
const env = {
  RATE_LIMIT_RPS: '1000000',
  RATE_LIMIT_BURST: '1000000',
  MAX_CONCURRENT_OPERATIONS: '1000',
  LOG_LEVEL: 'error',
  MODEL_CACHE_DIR: modelCacheDir,
  DEFAULT_EMBEDDING_MODEL: model,
};
const server = await startServerProcess(env, dataDir);
const post = async (path: string, body: unknown, token?: string) => {
  const res = await fetch(`${server.baseUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token && { authorization: `Bearer ${token}` }) },
    body: JSON.stringify(body),
  });
  return (await res.json()) as Record<string, unknown>;
};
const credentials = { email: `bench-${randomUUID()}@example.com`, password: 'password-1234' };
const tenantId = randomUUID();
await post('/auth/register', { ...credentials, tenant_id: tenantId });
const token = (await post('/auth/login', credentials)).token as string;
const userId = ((await post('/auth/login', credentials)).user as { id: string }).id;

const next = random(5);
let started = performance.now();
for (let i = 0; i < total; i += 2000) {
  const docs = zipfDocuments(next, i, Math.min(2000, total - i), model);
  const res = await post('/api/v1/documents/batch', docs, token);
  if (res.success !== true) throw new Error(JSON.stringify(res));
}
process.stdout.write(
  `Ingested ${total} documents over HTTP (glove-100) in ${((performance.now() - started) / 1000).toFixed(1)} s\n`,
);

// Words of frequency ranks 40, 400 and 4,000: one common, one ordinary, one rare, as real queries mix them.
const query = [40, 400, 4000].map(zipfWord).join(' ');
const phrase = [4, 40].map(zipfWord).join(' ');
const cases = [
  { name: 'text', path: '/api/v1/search/text', body: { query, query_type: 'match', limit: 10 } },
  // The default query type: two frequent words in order, the costly kind of phrase (every chunk holding the rarer
  // word is checked).
  { name: 'phrase', path: '/api/v1/search/text', body: { query: phrase, limit: 10 } },
  {
    name: 'vector',
    path: '/api/v1/search/vector',
    body: { query, limit: 10, threshold: 0, embedding_options: { model_name: model } },
  },
  { name: 'hybrid', path: '/api/v1/search/hybrid', body: { query, limit: 10 } },
  // Issue #42's latency goal: a 3-stage pipeline within 2x of plain hybrid. Sparse stages are not built yet, so the
  // third stage is a text stage of the rare word; each stage fetches 20, as hybrid's sides (2 x limit).
  { name: 'pipeline', path: '/api/v1/search/query', body: pipelineBody() },
];
/** The pipeline case: text, dense and text stages fused by RRF, then MMR over the 20 best on the model's vector. */
function pipelineBody() {
  return {
    prefetch: [
      { kind: 'text', query, limit: 20 },
      { kind: 'dense', query, limit: 20 },
      { kind: 'text', query: zipfWord(4000), limit: 20 },
    ],
    fusion: { method: 'rrf' },
    mmr: { lambda: 0.7, candidates: 20 },
    limit: 10,
  } as const;
}
const rows: Record<string, string | number>[] = [];
const http: Record<string, number> = {};
const firstQuery: Record<string, number> = {};
let backgroundLoad = 0;
let vectorBuild = 0;
// Warm up every case before measuring any, so that no background work of one (the HNSW build, which follows the
// import, or the BM25 load) runs while another is measured. The first vector query waits for the tenant's HNSW
// graph, which an import builds in the background as it writes; past the 10 s answer timeout, ask again. The first
// text query starts loading the BM25 index in the background and is ranked through FTS5 until it is loaded.
for (const c of cases) {
  const t = performance.now();
  const first = await post(c.path, c.body, token);
  firstQuery[c.name] = performance.now() - t;
  if (c.name === 'vector') {
    let answer = first;
    while (!Array.isArray(answer.results) && performance.now() - t < 180_000)
      answer = await post(c.path, c.body, token);
    vectorBuild = performance.now() - t;
  }
  if (c.name === 'text') {
    while (((await post(c.path, c.body, token)).time_taken as number) > 10 && performance.now() - t < 60_000)
      await new Promise((resolve) => setTimeout(resolve, 100));
    backgroundLoad = performance.now() - t;
  }
}
// The import's vectors are searched exactly from the index tail at once and moved into the HNSW graph in the
// background, on both cores (usearch's threads): wait until the graph holds them all, so that no measurement below
// runs beside that insertion (it did: the first, text, then measured the contention, not the text path).
const indexLag = async () =>
  ((await (await fetch(`${server.baseUrl}/readyz`)).json()) as { vector_indexes?: { lag: number } }).vector_indexes
    ?.lag ?? 0;
while ((await indexLag()) > 0) await new Promise((resolve) => setTimeout(resolve, 250));
for (const c of cases) {
  const body = JSON.stringify(c.body);
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${token}` };
  // Throughput: 10 connections, each sending its next request as soon as the previous one is answered.
  const max = await autocannon({
    url: `${server.baseUrl}${c.path}`,
    method: 'POST',
    headers,
    body,
    connections: 10,
    duration: seconds,
  });
  http[c.name] = max.requests.average;
  rows.push({
    search: c.name,
    path: 'HTTP (10 connections, max)',
    QPS: Math.round(max.requests.average),
    'p50 ms': max.latency.p50,
    'p99 ms': max.latency.p99,
    errors: max.non2xx + max.errors,
  });
  // The goal's load: requests sent at a steady 500 per second whether or not earlier ones were answered (an open
  // loop, so queueing shows in the latencies; autocannon's rate option sends each second's budget in a burst).
  const steady = (secondsToRun: number) =>
    new Promise<LoadTestResult>((resolve, reject) =>
      loadTest(
        {
          url: `${server.baseUrl}${c.path}`,
          method: 'POST',
          contentType: 'application/json',
          headers: { authorization: headers.authorization },
          body,
          requestsPerSecond: rate,
          concurrency: 10,
          maxSeconds: secondsToRun,
          agentKeepAlive: true,
          quiet: true,
        },
        (error: Error | null, result: LoadTestResult) => (error ? reject(error) : resolve(result)),
      ),
    );
  if (c.name === 'hybrid' || c.name === 'pipeline') continue; // the goal is for text and vector
  if (max.requests.average < rate) {
    // An open loop above capacity only builds a queue, which would spill into the next case's measurement.
    rows.push({
      search: c.name,
      path: `HTTP (paced ${rate} req/s)`,
      QPS: '-',
      'p50 ms': '-',
      'p99 ms': 'over capacity',
      errors: '-',
    });
    continue;
  }
  await steady(2); // warms the load generator's connections and code; not measured
  const paced = await steady(seconds);
  rows.push({
    search: c.name,
    path: `HTTP (paced ${rate} req/s)`,
    QPS: Math.round(paced.rps),
    'p50 ms': paced.percentiles[50] ?? '-',
    'p99 ms': paced.percentiles[99] ?? '-',
    errors: paced.totalErrors,
  });
}
process.stdout.write(
  `First query after start: ${Object.entries(firstQuery)
    .map(([k, v]) => `${k} ${v.toFixed(0)} ms`)
    .join(
      ', ',
    )}; text index loaded in the background within ${(backgroundLoad / 1000).toFixed(1)} s, vector index ready within ${(vectorBuild / 1000).toFixed(1)} s\n`,
);
await server.stop();

// The same queries through the engine, in this process, on the same data.
const engine = openEngine(benchEngineOptions(dataDir, model));
const scope = { viewer: { tenantId, userId, groups: [] }, now: Math.floor(Date.now() / 1000) };
const oneCollection = { ...scope, table: 'documents' };
// As in the server: the text index loads in the background on the first word query; wait for it.
await engine.text.loaded(tenantId);
const direct: Record<string, () => Promise<unknown>> = {
  text: async () => textSearch(engine.search, scope, query, 'match', 10),
  phrase: async () => textSearch(engine.search, scope, phrase, 'phrase', 10),
  vector: async () =>
    vectorSearch(engine.search, engine.embedder, scope, {
      text: query,
      model,
      method: 'cosine',
      threshold: 0,
      limit: 10,
    }),
  hybrid: async () =>
    hybridSearch(engine.search, engine.embedder, scope, {
      text: query,
      model,
      alpha: 0.3,
      limit: 10,
      fusion: 'weighted',
      useMlRanking: false,
    }),
  pipeline: async () => engine.searches.query(scope, { ...pipelineBody(), offset: 0, explain: false }),
  // Both restricted to one collection (primary_table): a text and a vector side together cost more there, alike.
  'hybrid, one collection': async () =>
    hybridSearch(engine.search, engine.embedder, oneCollection, {
      text: query,
      model,
      alpha: 0.3,
      limit: 10,
      fusion: 'rrf',
      useMlRanking: false,
    }),
  'pipeline, one collection': async () =>
    engine.searches.query(oneCollection, {
      ...pipelineBody(),
      prefetch: pipelineBody().prefetch.map((s) => (s.kind === 'dense' ? { ...s, vector_name: model } : s)),
      mmr: { ...pipelineBody().mmr, vector_name: model },
      offset: 0,
      explain: false,
    }),
};
for (const [name, run] of Object.entries(direct)) {
  await run();
  const latencies: number[] = [];
  started = performance.now();
  while (performance.now() - started < seconds * 1000) {
    const t = performance.now();
    await run();
    latencies.push(performance.now() - t);
  }
  latencies.sort((a, b) => a - b);
  const qps = latencies.length / ((performance.now() - started) / 1000);
  rows.push({
    search: name,
    path: 'engine (1 caller)',
    QPS: Math.round(qps),
    'p50 ms': latencies[Math.floor(latencies.length / 2)]!.toFixed(2),
    'p99 ms': latencies[Math.floor(latencies.length * 0.99)]!.toFixed(2),
    errors: 0,
  });
  if (http[name] === undefined) continue;
  rows.push({
    search: name,
    path: 'HTTP / engine QPS',
    QPS: ((http[name] ?? 0) / qps).toFixed(2),
    'p50 ms': '-',
    'p99 ms': '-',
    errors: '-',
  });
}
const pipelineRatio = (name: string) =>
  rows.find((r) => r.search === name && r.path === 'engine (1 caller)')?.['p50 ms'];
process.stdout.write(
  `\nPipeline (3 stages, RRF, MMR) p50 over hybrid p50, engine: ${(Number(pipelineRatio('pipeline')) / Number(pipelineRatio('hybrid'))).toFixed(2)}x (in one collection: ${(Number(pipelineRatio('pipeline, one collection')) / Number(pipelineRatio('hybrid, one collection'))).toFixed(2)}x); HTTP QPS hybrid / pipeline: ${((http.hybrid ?? 0) / (http.pipeline ?? 1)).toFixed(2)}x (goal: within 2x)\n`,
);
await engine.close();
rmSync(dataDir, { recursive: true, force: true });
table(rows);
process.stdout.write(
  `\nGoal at this size on 2 cores: p99 ≤ 10 ms at 500 req/s for text and vector (the "paced ${rate} req/s" rows).\n`,
);
saveResults('search', rows);
