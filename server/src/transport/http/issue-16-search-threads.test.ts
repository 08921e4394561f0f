import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { seededRandom } from '../../test-support/fuzz-inputs.js';
import { bearer, startTestServer, type TestServer } from '../../test-support/server.js';

// SEARCH_THREADS=0 with SEARCH_BATCH_MIN_VECTORS=0: vector queries that arrive together are searched as one batch on
// every core. Each must get the answer it gets alone: the same documents, scores and order.

const dims = 16;
const total = 2500; // above the 2,000 vectors below which a search scans exactly, so the HNSW graph answers
let server: TestServer;
let token: string;

const next = seededRandom(16);
const vectorOf = () => Array.from({ length: dims }, () => next() * 2 - 1);

async function search(vector: number[]) {
  const res = await server.app.inject({
    method: 'POST',
    url: '/api/v1/search/vector',
    headers: bearer(token),
    payload: { vector, primary_table: 'together', limit: 10, threshold: 0 },
  });
  assert.equal(res.statusCode, 200, res.body);
  return (res.json() as { results: { document_id: string; score: number }[] }).results;
}

before(async () => {
  server = await startTestServer({ SEARCH_THREADS: '0', SEARCH_BATCH_MIN_VECTORS: '0' });
  token = (await server.registerTenant()).token;
  const docs = Array.from({ length: total }, (_, i) => ({
    id: `t-${i}`,
    primary_table: 'together',
    vector: vectorOf(),
  }));
  for (let i = 0; i < total; i += 500) {
    const res = await server.app.inject({
      method: 'POST',
      url: '/api/v1/documents/batch',
      headers: bearer(token),
      payload: docs.slice(i, i + 500),
    });
    assert.equal(res.statusCode, 200, res.body.slice(0, 300));
  }
  // Written vectors wait in the index's tail (compared exactly) until the background insertion moves them into the
  // graph (approximate): both ways of searching must see the same graph.
  for (let lag = -1; lag !== 0;) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    const ready = await server.app.inject({ method: 'GET', url: '/readyz' });
    lag = (ready.json() as { vector_indexes?: { lag: number } }).vector_indexes?.lag ?? 0;
  }
});
after(async () => {
  await server.close();
});

describe('vector queries searched together (SEARCH_THREADS, issue #16)', () => {
  test('each of 16 concurrent queries gets the answer it gets alone', async () => {
    const queries = Array.from({ length: 16 }, vectorOf);
    const together = await Promise.all(queries.map(search));
    for (const [i, query] of queries.entries()) {
      const alone = await search(query);
      assert.equal(alone.length, 10);
      assert.deepEqual(together[i], alone, `query ${i}`);
    }
  });
});
