import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { bearer, startTestServer, type TestServer } from '../../test-support/server.js';

/**
 * Issue 37: a DELETE sent with `Content-Type: application/json` and no body (what axios and many fetch wrappers
 * send) answered 400 "body must not be empty". A route that takes no body accepts it; one that needs a body still
 * refuses an empty one.
 */
let server: TestServer;
let admin: Awaited<ReturnType<TestServer['registerTenant']>>;

before(async () => {
  server = await startTestServer();
  admin = await server.registerTenant();
});
after(() => server.close());

const emptyJson = (method: 'DELETE' | 'POST' | 'GET', url: string) =>
  server.app.inject({
    method,
    url,
    headers: { ...bearer(admin.token), 'content-type': 'application/json' },
    payload: '',
  });

test('a DELETE with Content-Type application/json and no body deletes', async () => {
  const added = await server.call('POST', '/api/v1/documents', admin.token, {
    id: 'empty-delete',
    title: 'To be deleted',
    embedding_options: { enabled: false },
  });
  assert.equal(added.status, 201, added.text);
  const deleted = await emptyJson('DELETE', '/api/v1/documents/empty-delete');
  assert.equal(deleted.statusCode, 200, deleted.body);
  assert.equal((await server.call('GET', '/api/v1/documents/empty-delete', admin.token)).status, 404);

  await server.call('POST', '/api/v1/collections', admin.token, { name: 'empty-body-collection' });
  const collection = await emptyJson('DELETE', '/api/v1/collections/empty-body-collection');
  assert.equal(collection.statusCode, 200, collection.body);
});

test('a body that is there is still parsed on a route without one, and must be JSON', async () => {
  const res = await server.app.inject({
    method: 'DELETE',
    url: '/api/v1/documents/nothing-here',
    headers: { ...bearer(admin.token), 'content-type': 'application/json' },
    payload: '{not json',
  });
  assert.equal(res.statusCode, 400);
  assert.equal((res.json() as { error: { code: string } }).error.code, 'INVALID_JSON_BODY');
});

test('a route that needs a body still refuses an empty one', async () => {
  const res = await emptyJson('POST', '/api/v1/documents');
  assert.equal(res.statusCode, 400);
  const { error } = res.json() as { error: { message: string; field: string } };
  assert.equal(error.field, 'body');
  assert.match(error.message, /body must not be empty when Content-Type is application\/json/);
});
