// node --conditions=source --import tsx bench/cost.ts — issue 22's "nothing blocks the server" cases, over HTTP
// (app.inject) on a real server: how long each request takes and the longest event-loop stall while it runs
// (what every other request would wait). Prints numbers, never passes or fails on time.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { bearer, startTestServer } from '../server/src/test-support/server.js';
import { random, zipfText } from './engine-fixture.js';
import { caveat, table } from './support.js';

caveat();
const next = random(22);
const rows: Record<string, string | number>[] = [];
const lag = monitorEventLoopDelay({ resolution: 10 });
lag.enable();

const server = await startTestServer({ WRITE_TIMEOUT_MS: '600000', BODY_LIMIT_BYTES: String(50 * 1024 * 1024) });
const admin = await server.registerTenant();
const headers = bearer(admin.token);
const post = (url: string, payload: unknown) =>
  server.app.inject({ method: 'POST', url, headers, payload: payload as object });

async function measure(label: string, request: () => Promise<{ statusCode: number }>): Promise<void> {
  lag.reset();
  const started = performance.now();
  const res = await request();
  const ms = performance.now() - started;
  await new Promise((resolve) => setTimeout(resolve, 30)); // let the delay monitor record a stall that just ended
  rows.push({ case: label, status: res.statusCode, ms: Math.round(ms), 'longest stall ms': Math.round(lag.max / 1e6) });
}

// 5,000 documents of ~900 Zipf-distributed words (≈ 30,000 chunks of 1 KB) in five tables.
for (let i = 0; i < 5000; i += 250) {
  const docs = Array.from({ length: 250 }, (_v, j) => ({
    id: `d${i + j}`,
    title: zipfText(next, 4),
    content: zipfText(next, 900, 5000),
    tags: [zipfText(next, 1), zipfText(next, 1)],
    primary_table: `t${(i + j) % 5}`,
    metadata: { group: (i + j) % 10 },
    embedding_options: { enabled: false },
  }));
  await post('/api/v1/documents/batch', docs);
}

const common = Array.from({ length: 200 }, (_v, i) => `w${i.toString(36)}`).join(' ');
await measure('200-word text query, first of the tenant', () => post('/api/v1/search/text', { query: common }));
lag.reset();
const building = performance.now();
await server.engine.text.loaded(admin.tenantId);
rows.push({
  case: 'BM25 index build after the first query',
  status: '-',
  ms: Math.round(performance.now() - building),
  'longest stall ms': Math.round(lag.max / 1e6),
});
await measure('200-word text query, index loaded', () => post('/api/v1/search/text', { query: common }));

// FACET_NAMES and TABLE_NAMES shrink the lists (to measure code where they cost minutes).
const facetNames = Number(process.env.FACET_NAMES ?? 100_000);
const tableNames = Number(process.env.TABLE_NAMES ?? 20_000);
const facets = Array.from({ length: facetNames }, (_v, i) => ['tags', 'metadata.group', 'primary_table'][i % 3]);
await measure(`faceted, ${facetNames} facet names (3 distinct)`, () => post('/api/v1/search/faceted', { facets }));
const tables = Array.from({ length: tableNames }, (_v, i) => `t${i % 5}`);
await measure(`multi-table, ${tableNames} table names (5 distinct)`, () =>
  post('/api/v1/search/multi-table', { table_names: tables }),
);
await measure(`multi-table, ${tableNames} table names, with a query`, () =>
  post('/api/v1/search/multi-table', { table_names: tables, query: 'w1 w2' }),
);

const megabyte = Array.from({ length: 17_000 }, () => `${zipfText(next, 10)}.`).join(' ');
for (const strategy of ['token', 'sentence', 'paragraph'] as const) {
  await measure(`add 1 MB, ${strategy} chunks, no embedding`, () =>
    post('/api/v1/documents', {
      content: strategy === 'paragraph' ? megabyte.replace(/\. /g, '.\n\n') : megabyte,
      embedding_options: { enabled: false, preprocessing: { strategy } },
    }),
  );
}
await measure('add 1 MB, use-lite-512 embeddings', () => post('/api/v1/documents', { content: megabyte }));

table(rows);
await server.close();
