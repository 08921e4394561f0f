// bench:compare's search measurement (run by bench/compare.ts, once per ref and round): bench:search's main
// numbers, the most QPS 10 connections reach over HTTP (autocannon) for text match, phrase, vector and hybrid top 10,
// on the server of `--root`. The same data and queries as bench/search.ts: BENCH_DOCS (100,000) documents of 60 Zipf
// words embedded with glove-100 by the server, ingested in batches of 2,000, each case warmed and the vector graph
// complete before any is measured, BENCH_SECONDS (10) a case. The paced-latency and in-process engine parts of
// bench:search are left out: they measure latency at a fixed rate and the engine without HTTP, not throughput.
import autocannon from 'autocannon';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sharedGloveReady, sharedModelCacheDir } from '../server/src/test-support/model-cache.js';
import { random, zipfDocuments, zipfWord } from './engine-fixture.js';
import { printResult, rootArgument, startServerAt, type Metric } from './compare-server.js';
import { unthrottledServerEnv } from './support.js';

const root = rootArgument(process.argv.slice(2));
const total = Number(process.env.BENCH_DOCS ?? 100_000);
const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const model = 'glove-100';

// The server converts GloVe on the first request naming it; the shared cache holds it converted already.
await sharedGloveReady();
const dataDir = mkdtempSync(join(tmpdir(), 'godb-bench-compare-search-'));
const server = await startServerAt(
  root,
  {
    ...unthrottledServerEnv,
    MODEL_CACHE_DIR: sharedModelCacheDir,
    DEFAULT_EMBEDDING_MODEL: model,
  },
  dataDir,
);
const post = async (path: string, body: unknown, token?: string) => {
  const res = await fetch(`${server.baseUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token && { authorization: `Bearer ${token}` }) },
    body: JSON.stringify(body),
  });
  return (await res.json()) as Record<string, unknown>;
};

try {
  const credentials = { email: `bench-${randomUUID()}@example.com`, password: 'password-1234' };
  await post('/auth/register', { ...credentials, tenant_id: randomUUID() });
  const token = (await post('/auth/login', credentials)).token as string;
  const next = random(5);
  const started = performance.now();
  for (let i = 0; i < total; i += 2000) {
    const res = await post('/api/v1/documents/batch', zipfDocuments(next, i, Math.min(2000, total - i), model), token);
    if (res.success !== true) throw new Error(JSON.stringify(res).slice(0, 500));
  }
  const ingestSeconds = (performance.now() - started) / 1000;
  process.stdout.write(`ingested ${total} documents in ${ingestSeconds.toFixed(1)} s\n`);

  const query = [40, 400, 4000].map(zipfWord).join(' ');
  const phrase = [4, 40].map(zipfWord).join(' ');
  const cases = [
    { name: 'text', path: '/api/v1/search/text', body: { query, query_type: 'match', limit: 10 } },
    { name: 'phrase', path: '/api/v1/search/text', body: { query: phrase, limit: 10 } },
    {
      name: 'vector',
      path: '/api/v1/search/vector',
      body: { query, limit: 10, threshold: 0, embedding_options: { model_name: model } },
    },
    { name: 'hybrid', path: '/api/v1/search/hybrid', body: { query, limit: 10 } },
  ];
  // As bench/search.ts: every case warmed first (the vector query waits for the graph, the text query for the BM25
  // index loaded in the background), then the graph complete, so no background work runs beside a measurement.
  for (const c of cases) {
    const t = performance.now();
    let answer = await post(c.path, c.body, token);
    if (c.name === 'vector')
      while (!Array.isArray(answer.results) && performance.now() - t < 180_000)
        answer = await post(c.path, c.body, token);
    if (c.name === 'text')
      while (((await post(c.path, c.body, token)).time_taken as number) > 10 && performance.now() - t < 60_000)
        await new Promise((r) => setTimeout(r, 100));
  }
  const indexLag = async () =>
    ((await (await fetch(`${server.baseUrl}/readyz`)).json()) as { vector_indexes?: { lag: number } }).vector_indexes
      ?.lag ?? 0;
  while ((await indexLag()) > 0) await new Promise((r) => setTimeout(r, 250));

  const metrics: Record<string, Metric> = {
    [`search ingest docs/s (${total / 1000}k, glove-100)`]: { value: total / ingestSeconds, higherIsBetter: true },
  };
  for (const c of cases) {
    const max = await autocannon({
      url: `${server.baseUrl}${c.path}`,
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify(c.body),
      connections: 10,
      duration: seconds,
    });
    if (max.non2xx + max.errors > 0) throw new Error(`${c.name}: ${max.non2xx} non-2xx, ${max.errors} errors`);
    process.stdout.write(`${c.name}: ${Math.round(max.requests.average)} QPS\n`);
    metrics[`search ${c.name} QPS (10 conns)`] = { value: max.requests.average, higherIsBetter: true };
  }
  printResult(metrics);
} finally {
  await server.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
