import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../../test-support/server.js';
import { seededRandom } from '../../engine/vectors/kmeans.js';

// Issue #16 (index tail): a b1 index compares bits (Hamming distance) while the tail of vectors not yet in the
// graph is compared exactly (1 − cosine). Without float32 copies (VECTOR_CACHE_MB=0) the graph's candidates were
// merged with the tail's on their Hamming counts, which are never below 1 while a cosine distance is: the tail
// pushed every graph candidate out, and search answered with the documents written last, not the nearest.

type Result = { document_id: string; score: number };

let server: TestServer;
let admin: Awaited<ReturnType<TestServer['registerTenant']>>;
let user: Awaited<ReturnType<TestServer['addUser']>>;

const cosine = (a: number[], b: number[]) =>
  a.reduce((s, x, i) => s + x * b[i]!, 0) / (Math.hypot(...a) * Math.hypot(...b));

const call: TestServer['call'] = (...args) => server.call(...args);

/** Lets the event loop turn until the background indexing has nothing left (a hang detector, not a timing). */
async function indexed(): Promise<void> {
  for (let turn = 0; turn < 100_000 && server.engine.vectors.lag() > 0; turn += 1)
    await new Promise((resolve) => setImmediate(resolve));
  assert.equal(server.engine.vectors.lag(), 0, 'the background indexing finished');
}

before(async () => {
  server = await startTestServer({ VECTOR_CACHE_MB: '0' });
  admin = await server.registerTenant();
  user = await server.addUser(admin);
});
after(async () => {
  await server.close();
});

describe('b1 storage without float32 copies (issue #16)', () => {
  test('ranks the graph and the tail on one scale: the nearest documents of both, as brute force finds them', async () => {
    const name = 'bits';
    const dims = 64;
    const created = await call('POST', '/api/v1/collections', admin.token, {
      name,
      vectors: { v: { dimensions: dims, distance: 'cosine', storage: 'b1' } },
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const next = seededRandom(1616);
    const vector = () => Array.from({ length: dims }, () => next() * 2 - 1);
    const all = Array.from({ length: 3000 }, vector);
    const add = async (from: number, to: number) => {
      for (let i = from; i < to; i += 500) {
        const res = await call(
          'POST',
          '/api/v1/documents/batch',
          user.token,
          all.slice(i, Math.min(i + 500, to)).map((v, j) => ({ id: `b-${i + j}`, primary_table: name, vector: v })),
        );
        assert.equal(res.status, 200, JSON.stringify(res.body).slice(0, 300));
      }
    };
    // 2,500 documents in the HNSW graph, then 500 written while indexing is held: they wait in the tail.
    await add(0, 2500);
    await indexed();
    const release = server.engine.documents.deferIndexing();
    try {
      await add(2500, 3000);
      assert.equal(server.engine.vectors.lag(), 500, 'the last 500 wait in the tail');
      let agree = 0;
      let fromGraph = 0;
      for (let t = 0; t < 10; t += 1) {
        const q = vector();
        const res = await call('POST', '/api/v1/search/vector', user.token, {
          vector: q,
          primary_table: name,
          limit: 10,
          threshold: 0,
        });
        assert.equal(res.status, 200, JSON.stringify(res.body));
        const results = res.body.results as Result[];
        assert.equal(results.length, 10);
        const truth = all
          .map((v, i) => ({ id: `b-${i}`, score: cosine(q, v) }))
          .sort((a, b) => b.score - a.score)
          .slice(0, 10);
        // The score is the documented one: the exact cosine of the given vectors, best first.
        for (const r of results) {
          const i = Number(r.document_id.slice(2));
          assert.ok(Math.abs(r.score - cosine(q, all[i]!)) < 1e-4, `${r.score} for ${r.document_id}`);
          if (i < 2500) fromGraph += 1;
        }
        for (let i = 1; i < results.length; i += 1) assert.ok(results[i - 1]!.score >= results[i]!.score);
        agree += truth.filter((x) => results.some((r) => r.document_id === x.id)).length;
      }
      // Five sixths of the documents are in the graph: most of the nearest are there, and are found.
      assert.ok(fromGraph >= 50, `${fromGraph} of 100 results from the graph`);
      assert.ok(agree / 100 >= 0.6, `recall ${agree / 100}`);
    } finally {
      release();
    }
  });
});
