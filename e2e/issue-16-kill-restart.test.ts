// Issue #16 (restart without full rebuilds): a real server process is killed with SIGKILL after a checkpoint of
// its vector index and more acknowledged writes (new documents, replaced, hidden and purged ones). The restarted
// server loads the checkpoint and replays only the writes after it — /readyz says so — and every acknowledged write
// is there. The deadlines below only detect a hang; nothing is timed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { api, startServerProcess, type ServerProcess } from './support/server-process.js';

const dims = 8;

interface Readyz {
  status: string;
  loading: unknown[];
  vector_indexes: { file: number; replay: number; rebuild: number; checkpoints: number; evictions: number };
}

/** Polls /readyz until `done` holds (a hang detector after 60 s, not a timing). */
async function readyzUntil(server: ServerProcess, done: (r: Readyz) => boolean): Promise<Readyz> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const readyz = (await (await fetch(`${server.baseUrl}/readyz`)).json()) as Readyz;
    if (done(readyz)) return readyz;
    assert.ok(Date.now() < deadline, `readyz never got there: ${JSON.stringify(readyz)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

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

const doc = (n: number, vector = vectorOf(n)) => ({ id: `d${n}`, primary_table: 'vecs', vectors: { v: vector } });

test('after kill -9 the vector index is replayed from its checkpoint, with every acknowledged write', async () => {
  const env = {
    RATE_LIMIT_RPS: '10000',
    RATE_LIMIT_BURST: '10000',
    CHECKPOINT_WRITES: '1000',
    CHECKPOINT_INTERVAL_S: '3600', // only the first, large batch of writes reaches a checkpoint
  };
  const first = await startServerProcess(env);
  const dataDir = first.dataDir;
  const credentials = { email: `kill-${randomUUID()}@example.com`, password: 'password-1234' };
  await api(first, 'POST', '/auth/register', undefined, { ...credentials, tenant_id: randomUUID() });
  const token = (await api(first, 'POST', '/auth/login', undefined, credentials)).body.token as string;
  const created = await api(first, 'POST', '/api/v1/collections', token, {
    name: 'vecs',
    vectors: { v: { dimensions: dims } },
  });
  assert.equal(created.status, 201);

  // 2,100 documents (above the exact-scan threshold, so searches use the index), then a checkpoint.
  for (let from = 0; from < 2100; from += 300) {
    const res = await api(
      first,
      'POST',
      '/api/v1/documents/batch',
      token,
      Array.from({ length: 300 }, (_v, i) => doc(from + i)),
    );
    assert.equal(res.status, 200);
  }
  await readyzUntil(first, (r) => r.vector_indexes.checkpoints >= 1);

  // After the checkpoint, fewer changes than CHECKPOINT_WRITES: new, replaced, hidden and purged documents.
  const added = Array.from({ length: 50 }, (_v, i) => doc(5000 + i));
  assert.equal((await api(first, 'POST', '/api/v1/documents/batch', token, added)).status, 200);
  const replaced = doc(7, vectorOf(9999));
  assert.equal((await api(first, 'POST', '/api/v1/documents', token, replaced)).status, 201);
  assert.equal((await api(first, 'DELETE', '/api/v1/documents/d8', token)).status, 200);
  assert.equal((await api(first, 'DELETE', '/api/v1/documents/d9?permanent=true', token)).status, 200);
  assert.equal((await readyzUntil(first, () => true)).vector_indexes.checkpoints, 1, 'no checkpoint since');
  first.process.kill('SIGKILL');
  await new Promise((resolve) => first.process.once('exit', resolve));

  const second = await startServerProcess(env, dataDir);
  try {
    // The index starts loading at start-up: from its checkpoint, then the writes after it.
    const readyz = await readyzUntil(
      second,
      (r) => r.loading.length === 0 && r.vector_indexes.replay + r.vector_indexes.rebuild > 0,
    );
    assert.equal(readyz.status, 'ready');
    assert.deepEqual(
      { replay: readyz.vector_indexes.replay, rebuild: readyz.vector_indexes.rebuild },
      { replay: 1, rebuild: 0 },
      'replayed, not rebuilt',
    );
    const nearest = async (vector: number[]) =>
      (
        (
          await api(second, 'POST', '/api/v1/search/vector', token, {
            vector,
            primary_table: 'vecs',
            threshold: 0,
            limit: 3,
          })
        ).body.results as { document_id: string }[]
      ).map((r) => r.document_id);
    for (const d of added) {
      assert.equal((await api(second, 'GET', `/api/v1/documents/${d.id}`, token)).status, 200, d.id);
    }
    assert.equal((await nearest(vectorOf(5025)))[0], 'd5025', 'written after the checkpoint, found by the index');
    assert.equal((await nearest(vectorOf(9999)))[0], 'd7', 'replaced after the checkpoint');
    for (const gone of [8, 9]) {
      assert.equal((await api(second, 'GET', `/api/v1/documents/d${gone}`, token)).status, 404);
      assert.ok(!(await nearest(vectorOf(gone))).includes(`d${gone}`), `d${gone} deleted after the checkpoint`);
    }
    assert.equal((await nearest(vectorOf(1234)))[0], 'd1234', 'from the checkpoint');
    const info = await api(second, 'GET', '/api/v1/collections/vecs', token);
    assert.equal((info.body.vector_stats as { v: { vectors: number } }).v.vectors, 2100 + 50 - 2);
  } finally {
    await second.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
