// Issue #16 (import rate): an NDJSON import is answered once its lines are stored, and their vectors join the HNSW
// graph in the background. Over HTTP against a real server process: right after the import every document is
// found by its own vector (the part not in the graph yet is compared exactly), the collection info shows how much
// of the index is in the graph, and a kill -9 while the graph catches up loses nothing: the restarted server has
// every acknowledged line, searchable. The deadlines below only detect a hang; nothing is timed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { api, startServerProcess, type ServerProcess } from './support/server-process.js';

const dims = 128;
const total = 6000;

/** A deterministic vector per document number (mulberry32). */
function vectorOf(n: number): number[] {
  let a = n * 2654435761;
  return Array.from({ length: dims }, () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296 - 0.5;
  });
}

const line = (n: number) =>
  `${JSON.stringify({ id: `d${n}`, primary_table: 'vecs', content: `document ${n}`, vector: vectorOf(n) })}\n`;

async function nearest(server: ServerProcess, token: string, n: number): Promise<string | undefined> {
  const res = await api(server, 'POST', '/api/v1/search/vector', token, {
    vector: vectorOf(n),
    primary_table: 'vecs',
    threshold: 0,
    limit: 1,
  });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return (res.body.results as { document_id: string }[])[0]?.document_id;
}

type Stats = { vectors: number; indexed: number };
const statsOf = async (server: ServerProcess, token: string) =>
  ((await api(server, 'GET', '/api/v1/collections/vecs', token)).body.vector_stats as { v: Stats }).v;

test('an import is searchable as soon as it is answered, and a kill -9 while its index catches up loses nothing', async () => {
  const env = { RATE_LIMIT_RPS: '10000', RATE_LIMIT_BURST: '10000', CHECKPOINT_WRITES: '1000' };
  const first = await startServerProcess(env);
  const dataDir = first.dataDir;
  const credentials = { email: `import-${randomUUID()}@example.com`, password: 'password-1234' };
  await api(first, 'POST', '/auth/register', undefined, { ...credentials, tenant_id: randomUUID() });
  const token = (await api(first, 'POST', '/auth/login', undefined, credentials)).body.token as string;
  const created = await api(first, 'POST', '/api/v1/collections', token, {
    name: 'vecs',
    // A slow graph to build (ef_construction 400), so the kill below usually lands while it catches up.
    vectors: { v: { dimensions: dims, hnsw: { m: 16, ef_construction: 400, ef_search: 100 } } },
  });
  assert.equal(created.status, 201, JSON.stringify(created.body));

  const importLines = async (from: number, to: number) => {
    const res = await fetch(`${first.baseUrl}/api/v1/documents/import`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/x-ndjson' },
      body: Array.from({ length: to - from }, (_v, i) => line(from + i)).join(''),
    });
    assert.equal(res.status, 200);
    const answers = (await res.text()).trim().split('\n');
    assert.equal(answers.filter((a) => a.includes('"success":true')).length, to - from, 'every line acknowledged');
  };

  // Right after the answer: every sampled document is its own nearest neighbour, in the graph or not yet.
  await importLines(0, total);
  const during = await statsOf(first, token);
  assert.equal(during.vectors, total);
  assert.ok(during.indexed <= total);
  const sample = Array.from({ length: 25 }, (_v, i) => (i * 241) % total);
  for (const n of sample) assert.equal(await nearest(first, token, n), `d${n}`, `d${n} right after the import`);

  // A second import, then kill -9 at once: the graph is still taking its vectors in the background.
  await importLines(total, 2 * total);
  first.process.kill('SIGKILL');
  await new Promise((resolve) => first.process.once('exit', resolve));
  const second = await startServerProcess(env, dataDir);
  try {
    const both = [...sample, ...sample.map((n) => n + total)];
    for (const n of both) assert.equal(await nearest(second, token, n), `d${n}`, `d${n} after kill -9`);
    for (let i = 0; ; i += 1) {
      const stats = await statsOf(second, token);
      assert.equal(stats.vectors, 2 * total, 'every acknowledged line is there');
      if (stats.indexed === 2 * total) break;
      assert.ok(i < 600, `the index never caught up: ${JSON.stringify(stats)}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    for (const n of both) assert.equal(await nearest(second, token, n), `d${n}`, `d${n} from the graph`);
  } finally {
    await second.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
