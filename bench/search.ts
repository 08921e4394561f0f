// npm run bench:search — 100,000 documents (60 words each, Zipf-distributed over 20,000 words); text, vector and hybrid top-10 over HTTP on a real port under load
// (autocannon: QPS, p50, p99), and the same queries through the engine in-process, as a ratio.
import autocannon from 'autocannon';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openEngine } from '../server/src/engine/engine.js';
import { hybridSearch } from '../server/src/engine/search/hybrid-search.js';
import { textSearch } from '../server/src/engine/search/text-search.js';
import { vectorSearch } from '../server/src/engine/search/vector-search.js';
import { startServerProcess } from '../e2e/support/server-process.js';
import { random, zipfText, zipfWord } from './engine-fixture.js';
import { caveat, saveResults, table } from './support.js';

const total = Number(process.env.BENCH_DOCS ?? 100_000);
const seconds = Number(process.env.BENCH_SECONDS ?? 10);
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
  const docs = Array.from({ length: Math.min(2000, total - i) }, (_v, j) => ({
    id: `d${i + j}`,
    title: zipfText(next, 6),
    content: zipfText(next, 60),
    embedding_options: { model_name: model },
  }));
  const res = await post('/api/v1/documents/batch', docs, token);
  if (res.success !== true) throw new Error(JSON.stringify(res));
}
process.stdout.write(
  `Ingested ${total} documents over HTTP (glove-100) in ${((performance.now() - started) / 1000).toFixed(1)} s\n`,
);

// Words of frequency ranks 40, 400 and 4,000: one common, one ordinary, one rare, as real queries mix them.
const query = [40, 400, 4000].map(zipfWord).join(' ');
const cases = [
  { name: 'text', path: '/api/v1/search/text', body: { query, query_type: 'match', limit: 10 } },
  {
    name: 'vector',
    path: '/api/v1/search/vector',
    body: { query, limit: 10, threshold: 0, embedding_options: { model_name: model } },
  },
  { name: 'hybrid', path: '/api/v1/search/hybrid', body: { query, limit: 10 } },
];
const rows: Record<string, string | number>[] = [];
const http: Record<string, number> = {};
for (const c of cases) {
  // Warm up: the first vector query after a start builds the tenant's HNSW index from the store.
  await post(c.path, c.body, token);
  const result = await autocannon({
    url: `${server.baseUrl}${c.path}`,
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify(c.body),
    connections: 10,
    duration: seconds,
  });
  http[c.name] = result.requests.average;
  rows.push({
    search: c.name,
    path: 'HTTP (10 connections)',
    QPS: Math.round(result.requests.average),
    'p50 ms': result.latency.p50,
    'p99 ms': result.latency.p99,
    errors: result.non2xx + result.errors,
  });
}
await server.stop();

// The same queries through the engine, in this process, on the same data.
const engine = openEngine({
  dataDir,
  embeddings: {
    defaultModel: model,
    modelsDir: join(dataDir, 'models'),
    modelCacheDir,
    workerPoolSize: 2,
    queueLimit: 1000,
    cacheSize: 1000,
    remote: [],
    http: { timeoutMs: 1000, retries: 0, sleep: async () => {} },
  },
});
const scope = { viewer: { tenantId, userId, groups: [] }, now: Math.floor(Date.now() / 1000) };
const direct: Record<string, () => Promise<unknown>> = {
  text: async () => textSearch(engine.search, scope, query, 'match', 10),
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
  rows.push({
    search: name,
    path: 'HTTP / engine QPS',
    QPS: ((http[name] ?? 0) / qps).toFixed(2),
    'p50 ms': '-',
    'p99 ms': '-',
    errors: '-',
  });
}
await engine.close();
rmSync(dataDir, { recursive: true, force: true });
table(rows);
process.stdout.write('\nGoal at this size on 2 cores: p99 ≤ 10 ms at 500 req/s for text and vector.\n');
saveResults('search', rows);
