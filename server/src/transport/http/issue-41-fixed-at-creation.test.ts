import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../../test-support/server.js';

// A collection's shard count, replication factor and sparse vectors are fixed at creation (issue #41's bad input):
// a PATCH naming one is a 400 that names the field and says why it cannot change and what to do instead — not
// "not a known field", which sends the user to check a spelling that is right.

let server: TestServer;
let admin: Awaited<ReturnType<TestServer['registerTenant']>>;

before(async () => {
  server = await startTestServer();
  admin = await server.registerTenant();
  const created = await server.call('POST', '/api/v1/collections', admin.token, {
    name: 'fixed',
    vectors: { v: { dimensions: 2 } },
    sparse_vectors: { splade: {} },
  });
  assert.equal(created.status, 201, created.text);
});
after(async () => {
  await server.close();
});

test('a PATCH of a creation-only field is refused with the reason, naming the field', async () => {
  const cases = [
    { body: { shards: 4 }, field: 'body.shards', says: /shard count \(resharding\) is a later step/ },
    { body: { replication_factor: 2 }, field: 'body.replication_factor', says: /replication factor is a later step/ },
    { body: { sparse_vectors: { other: {} } }, field: 'body.sparse_vectors', says: /sparse vectors cannot change/ },
    // With an allowed change beside it, nothing of the body is applied.
    { body: { description: 'changed', shards: 2 }, field: 'body.shards', says: /is fixed at creation/ },
  ];
  for (const { body, field, says } of cases) {
    const res = await server.call('PATCH', '/api/v1/collections/fixed', admin.token, body);
    assert.equal(res.status, 400, res.text);
    assert.equal(res.body.error?.code, 'VALIDATION_FAILED');
    assert.equal(res.body.error?.field, field);
    assert.match(res.body.error?.message ?? '', new RegExp(`^${field.replace('.', '\\.')} is fixed at creation`));
    assert.match(res.body.error?.message ?? '', says);
  }
  const info = await server.call('GET', '/api/v1/collections/fixed', admin.token);
  assert.equal(info.body.description, '');
});

test('an unknown field is still called unknown, and an allowed change still applies', async () => {
  const unknown = await server.call('PATCH', '/api/v1/collections/fixed', admin.token, { shard: 4 });
  assert.equal(unknown.status, 400);
  assert.equal(
    unknown.body.error?.message,
    'body.shard is not a known field: check its spelling against the API reference',
  );
  const changed = await server.call('PATCH', '/api/v1/collections/fixed', admin.token, { description: 'kept' });
  assert.equal(changed.status, 200, changed.text);
  assert.equal(changed.body.description, 'kept');
});
