// bench:compare's import measurement (run by bench/compare.ts, once per ref and round): bench:scale's import phase
// alone, on the server of `--root`. The same documents bench/scale.ts sends (BENCH_DOCS, default 100,000: 512-d
// embedding-like vectors given by the client, about 60 Zipf words, a tag, two numbers) as one NDJSON stream over
// HTTP into a real server process with bench:scale's settings; measured: documents/s of the stream (bench:scale's
// "import docs/s"), and with COMPARE_INDEX_CATCH_UP=1 the seconds until the HNSW graph holds every vector after it
// (minutes on a busy 2-core machine; usearch's native build, which a change of the write path does not touch).
// bench/scale.ts runs its searches, restarts and restore after the import and has no switch to stop there, hence
// this driver. The vectors (1.5 minutes to make at 100k on a busy machine) are kept in COMPARE_CACHE_DIR when set,
// so every round of a compare sends the same ones without making them again.
import { Agent } from 'node:http';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { random, zipfText } from './engine-fixture.js';
import { printResult, rootArgument, startServerAt, type Metric } from './compare-server.js';
import { httpRequest, unthrottledServerEnv } from './support.js';
import { embeddingLikeVectors, rowJson, type VectorSet } from './vector-data.js';

const root = rootArgument(process.argv.slice(2));
const total = Number(process.env.BENCH_DOCS ?? 100_000);
const dims = 512;
const collection = 'scale';
const hnsw = { m: 16, ef_construction: 200, ef_search: 100 };
const waitForIndex = process.env.COMPARE_INDEX_CATCH_UP === '1';

/** bench:scale's vectors, read from the compare's cache when an earlier round made them (matrix, then norms). */
function scaleVectors(): VectorSet {
  const cache = process.env.COMPARE_CACHE_DIR;
  const file = cache === undefined ? undefined : join(cache, `scale-vectors-${total}x${dims}.f32`);
  if (file !== undefined && existsSync(file)) {
    const bytes = readFileSync(file);
    const all = new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
    return { dims, count: total, matrix: all.subarray(0, total * dims), norms: all.subarray(total * dims) };
  }
  const { data } = embeddingLikeVectors(total, 1, dims);
  if (file !== undefined) {
    writeFileSync(`${file}.tmp`, Buffer.concat([Buffer.from(data.matrix.buffer), Buffer.from(data.norms.buffer)]));
    renameSync(`${file}.tmp`, file);
  }
  return data;
}
const data = scaleVectors();
// As bench/scale.ts: document i's text from its own seed, its line with the same fields.
const textOf = (i: number) => {
  const next = random(1_000_003 + i);
  return zipfText(next, 50 + Math.floor(next() * 21));
};
const docLine = (i: number) =>
  `{"id":"s-${i}","primary_table":"${collection}","title":"document ${i}","content":"${textOf(i)}","tags":["t${i % 20}"],"metadata":{"bucket":${i % 100},"rank":${i}},"vector":${rowJson(data, i)}}\n`;

const dataDir = mkdtempSync(join(tmpdir(), 'godb-bench-compare-import-'));
const server = await startServerAt(
  root,
  {
    ...unthrottledServerEnv,
    MODEL_CACHE_DIR: join(tmpdir(), 'godb-test-model-cache'),
    VECTOR_CACHE_MB: String(Math.max(1024, Math.ceil((total * dims * 4 * 1.2) / 2 ** 20))),
  },
  dataDir,
);
const agent = new Agent({ keepAlive: true, maxSockets: 64 });
let token = '';
const send = (method: string, path: string, body?: string | AsyncIterable<string>, type = 'application/json') =>
  httpRequest(`${server.baseUrl}${path}`, {
    method,
    agent,
    body,
    headers: {
      ...(body !== undefined && { 'content-type': type }),
      ...(token && { authorization: `Bearer ${token}` }),
    },
  });
async function call(method: string, path: string, body: unknown): Promise<Record<string, unknown>> {
  const res = await send(method, path, JSON.stringify(body));
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${res.body.slice(0, 500)}`);
  return JSON.parse(res.body) as Record<string, unknown>;
}

try {
  const credentials = { email: `bench-${randomUUID()}@example.com`, password: 'password-1234' };
  await call('POST', '/auth/register', { ...credentials, tenant_id: randomUUID() });
  token = (await call('POST', '/auth/login', credentials)).token as string;
  await call('POST', '/api/v1/collections', {
    name: collection,
    vectors: { v: { dimensions: dims, distance: 'cosine', storage: 'f16', hnsw } },
  });
  async function* lines() {
    for (let i = 0; i < total; i += 200) {
      let piece = '';
      for (let j = i; j < Math.min(total, i + 200); j += 1) piece += docLine(j);
      yield piece;
    }
  }
  let t = performance.now();
  const imported = await send('POST', '/api/v1/documents/import', lines(), 'application/x-ndjson');
  const importSeconds = (performance.now() - t) / 1000;
  const failed = imported.body.split('\n').filter((l) => l.includes('"success":false'));
  if (imported.status !== 200 || failed.length > 0)
    throw new Error(`import: ${imported.status} ${failed.slice(0, 3).join('\n') || imported.body.slice(0, 500)}`);
  process.stdout.write(`imported ${total} documents in ${importSeconds.toFixed(1)} s\n`);
  const metrics: Record<string, Metric> = {
    [`import docs/s (${total / 1000}k)`]: { value: total / importSeconds, higherIsBetter: true },
  };
  if (waitForIndex) {
    // As bench:scale: the vectors waiting for the graph over all indexes, from /readyz.
    t = performance.now();
    const lag = async () =>
      (JSON.parse((await send('GET', '/readyz')).body) as { vector_indexes?: { lag: number } }).vector_indexes?.lag ??
      0;
    while ((await lag()) > 0) await new Promise((r) => setTimeout(r, 250));
    const caughtUp = (performance.now() - t) / 1000;
    process.stdout.write(`index caught up ${caughtUp.toFixed(1)} s later\n`);
    metrics[`index caught up after s (${total / 1000}k)`] = { value: caughtUp, higherIsBetter: false };
  }
  printResult(metrics);
} finally {
  await server.stop();
  agent.destroy();
  rmSync(dataDir, { recursive: true, force: true });
}
