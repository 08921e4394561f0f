import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../../test-support/server.js';

/**
 * Issue 37: a vector search naming a collection that does not exist answered INVALID_VECTOR_FORMAT "expected 512
 * numbers for use-lite-512, got 4" (the vector was checked against the default model). It says the collection does
 * not exist, as a search naming one of its vectors does.
 */
let server: TestServer;
let admin: Awaited<ReturnType<TestServer['registerTenant']>>;

before(async () => {
  server = await startTestServer();
  admin = await server.registerTenant();
});
after(() => server.close());

for (const kind of ['vector', 'hybrid'] as const) {
  test(`a ${kind} search with a vector for a collection that does not exist answers 404 naming it`, async () => {
    const res = await server.call('POST', `/api/v1/search/${kind}`, admin.token, {
      primary_table: 'no-such-collection',
      vector: [0.1, 0.2, 0.3, 0.4],
      query: 'shoes',
      ...(kind === 'vector' && { threshold: 0 }),
    });
    assert.equal(res.status, 404, res.text);
    assert.equal(res.body.error?.code, 'NOT_FOUND');
    assert.equal(res.body.error?.message, 'Collection no-such-collection not found');
    assert.equal(res.body.error?.field, 'body.primary_table');
  });
}

for (const kind of ['vector', 'hybrid'] as const) {
  test(`a ${kind} search with text to embed for a collection that does not exist answers 404 naming it`, async () => {
    const res = await server.call('POST', `/api/v1/search/${kind}`, admin.token, {
      primary_table: 'no-such-collection',
      query: 'shoes',
      ...(kind === 'vector' && { threshold: 0 }),
    });
    assert.equal(res.status, 404, res.text);
    assert.equal(res.body.error?.code, 'NOT_FOUND');
    assert.equal(res.body.error?.message, 'Collection no-such-collection not found');
    assert.equal(res.body.error?.field, 'body.primary_table');
  });
}

test('a new tenant’s vector search in the default collection, named or not, finds nothing rather than 404', async () => {
  const fresh = await server.registerTenant();
  for (const table of [{ primary_table: 'documents' }, {}]) {
    for (const body of [{ query: 'shoes' }, { vector: Array.from({ length: 512 }, (_, i) => (i === 0 ? 1 : 0)) }]) {
      const res = await server.call('POST', '/api/v1/search/vector', fresh.token, { ...table, ...body, threshold: 0 });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body.results, []);
    }
  }
});

test('once the collection exists, the same vector is read against its vectors', async () => {
  await server.call('POST', '/api/v1/collections', admin.token, {
    name: 'four-numbers',
    vectors: { v: { dimensions: 4 } },
  });
  const added = await server.call('POST', '/api/v1/documents', admin.token, {
    id: 'four',
    primary_table: 'four-numbers',
    vector: [0.1, 0.2, 0.3, 0.4],
  });
  assert.equal(added.status, 201, added.text);
  const res = await server.call('POST', '/api/v1/search/vector', admin.token, {
    primary_table: 'four-numbers',
    vector: [0.1, 0.2, 0.3, 0.4],
    threshold: 0,
  });
  assert.equal(res.status, 200, res.text);
  assert.deepEqual(
    (res.body.results as { document_id: string }[]).map((r) => r.document_id),
    ['four'],
  );
});
