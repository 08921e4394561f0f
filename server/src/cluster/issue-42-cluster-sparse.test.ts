import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { bearer, type TestServer } from '../test-support/server.js';
import { startTestCluster, type TestCluster } from '../test-support/test-cluster.js';

/**
 * Issue #42, decision 0058: sparse postings are written by the applied operation, so three real nats-server processes
 * and three GoDB nodes answer a sparse stage alike after writes and a delete taken by different nodes.
 */
describe('cluster mode: sparse vectors on every node (issue #42)', () => {
  let cluster: TestCluster;
  const bound = { timeout: 120_000 };

  before(async () => {
    cluster = await startTestCluster({ prefix: 'sparse' });
  });
  after(() => cluster?.close());

  test('every node ranks a sparse stage alike, before and after a delete through another node', bound, async () => {
    const [a, b] = cluster.nodes as [TestServer, TestServer, TestServer];
    const { token } = await a.registerTenant();
    const call = (node: TestServer, method: 'POST' | 'DELETE', url: string, payload?: object) =>
      node.app.inject({ method, url, headers: bearer(token), ...(payload && { payload }) });
    const created = await call(a, 'POST', '/api/v1/collections', { name: 'sp', sparse_vectors: { splade: {} } });
    assert.equal(created.statusCode, 201, created.body);
    const docs = Array.from({ length: 60 }, (_, i) => ({
      id: `c-${i}`,
      title: `doc ${i}`,
      primary_table: 'sp',
      sparse_vectors: { splade: { indices: [i % 7, 10 + (i % 5), 100 + i], values: [1 + (i % 3), 0.5, 0.01 * i] } },
    }));
    const written = await call(a, 'POST', '/api/v1/documents/batch', docs);
    assert.equal(written.statusCode, 200, written.body);
    await cluster.settle();
    const body = {
      primary_table: 'sp',
      prefetch: [{ kind: 'sparse', sparse_vector: { indices: [2, 12, 130], values: [1, 2, 3] }, limit: 20 }],
      limit: 20,
    };
    const rank = async () =>
      Promise.all(
        cluster.nodes.map(async (node) => {
          const res = await call(node, 'POST', '/api/v1/search/query', body);
          assert.equal(res.statusCode, 200, res.body);
          return (res.json() as { results: { document_id: string; score: number }[] }).results;
        }),
      );
    const first = await rank();
    assert.ok(first[0]!.length > 0);
    // The exhaustive dot products of what the test wrote (ties by write order, as the engine breaks them).
    const q = body.prefetch[0]!.sparse_vector;
    const expected = docs
      .map((d) => {
        const { indices, values } = d.sparse_vectors.splade;
        let score: number | undefined;
        q.indices.forEach((t, i) => {
          const at = indices.indexOf(t);
          if (at >= 0) score = (score ?? 0) + q.values[i]! * values[at]!;
        });
        return { id: d.id, score };
      })
      .filter((x): x is { id: string; score: number } => x.score !== undefined)
      .sort((x, y) => y.score - x.score)
      .slice(0, 20);
    assert.deepEqual(
      first[0]!.map((h) => h.document_id),
      expected.map((e) => e.id),
    );
    for (const other of first.slice(1)) assert.deepEqual(other, first[0]);
    const gone = await call(b, 'DELETE', `/api/v1/documents/${expected[0]!.id}`);
    assert.equal(gone.statusCode, 200, gone.body);
    await cluster.settle();
    const second = await rank();
    assert.ok(!second[0]!.some((h) => h.document_id === expected[0]!.id));
    for (const other of second.slice(1)) assert.deepEqual(other, second[0]);
  });
});
