import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { seededRandom } from '../../test-support/fuzz-inputs.js';
import { startTestServer, type HttpMethod, type TestServer } from '../../test-support/server.js';

// Issue #16 (index tail): a snapshot saves the vector indexes first. It used to index the whole tail of every
// index (the vectors acknowledged but not yet in the HNSW graph) in one go, holding the event loop — and every
// request, /healthz included — for as long as HNSW took: minutes after a large import. Now a save indexes a few
// thousand vectors at most and records a long tail's graph as it is (the next load catches it up from the store,
// where every acknowledged write already is); the tail keeps draining in the background, between requests.

let server: TestServer;
let admin: Awaited<ReturnType<TestServer['registerTenant']>>;
let base: string;

const call = (method: HttpMethod, url: string, payload?: unknown) => server.call(method, url, admin.token, payload);

/** /healthz over a real socket: answered only when the event loop is free. */
async function healthz(): Promise<number> {
  return (await fetch(`${base}/healthz`)).status;
}

before(async () => {
  server = await startTestServer();
  admin = await server.registerTenant();
  base = await server.listen();
});
after(async () => {
  await server.close();
});

describe('a snapshot taken while a large index tail waits (issue #16)', () => {
  test('does not drain the tail in one go: /healthz answers while it drains in steps, and every write is found', async () => {
    const dims = 32;
    const created = await call('POST', '/api/v1/collections', { name: 'drain', vectors: { v: { dimensions: dims } } });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    // Distinct vectors (a generator that cycles within 6,000 draws gave two documents the same vector, and the
    // nearest of a tie is either).
    const random = seededRandom(7);
    const next = () => random() * 2 - 1;
    const all = Array.from({ length: 6000 }, () => Array.from({ length: dims }, next));
    const release = server.engine.documents.deferIndexing(); // as a bulk import does
    try {
      for (let i = 0; i < all.length; i += 500) {
        const res = await call(
          'POST',
          '/api/v1/documents/batch',
          all.slice(i, i + 500).map((v, j) => ({ id: `d-${i + j}`, primary_table: 'drain', vector: v })),
        );
        assert.equal(res.status, 200, JSON.stringify(res.body).slice(0, 300));
      }
      assert.equal(server.engine.vectors.lag(), 6000, 'acknowledged, waiting for the HNSW graph');
      const started = await call('POST', '/api/v1/snapshots');
      assert.ok(started.status < 300, JSON.stringify(started.body));
      let job: Record<string, unknown> = {};
      for (let poll = 0; poll < 2000 && job.status !== 'done' && job.status !== 'failed'; poll += 1) {
        await new Promise((resolve) => setTimeout(resolve, 5));
        job = (await call('GET', `/api/v1/jobs/${String(started.body.job_id)}`)).body;
      }
      assert.equal(job.status, 'done', JSON.stringify(job));
      assert.equal(server.engine.vectors.lag(), 6000, 'the snapshot did not index the long tail itself');
      assert.equal(await healthz(), 200);
    } finally {
      release();
    }
    // The background indexing takes the tail a slice per turn of the event loop; /healthz is answered between them.
    const seen = new Set<number>();
    for (let poll = 0; poll < 10_000 && server.engine.vectors.lag() > 0; poll += 1) {
      assert.equal(await healthz(), 200);
      seen.add(server.engine.vectors.lag());
    }
    assert.equal(server.engine.vectors.lag(), 0, 'the tail drained');
    const during = [...seen].filter((lag) => lag > 0 && lag < 6000);
    assert.ok(
      during.length >= 2,
      `answered at ${during.length} points of the drain (lags seen: ${[...seen].join(', ')})`,
    );
    for (const n of [0, 2999, 5999]) {
      const res = await call('POST', '/api/v1/search/vector', {
        vector: all[n],
        primary_table: 'drain',
        limit: 1,
        threshold: 0,
      });
      assert.equal((res.body.results as { document_id: string }[])[0]?.document_id, `d-${n}`);
    }
  });
});
