import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { bearer, startTestServer, type TestServer } from '../../test-support/server.js';

/** Issue #20: what a new user tripped over in the first hour, server side. */

type Json = Record<string, unknown> & { error?: { code: string; message: string; field?: string } };

let server: TestServer;
let admin: Awaited<ReturnType<TestServer['registerTenant']>>;

async function call(method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: unknown, token = admin.token) {
  const res = await server.app.inject({
    method,
    url,
    headers: bearer(token),
    ...(payload !== undefined && { payload: payload as Record<string, unknown> }),
  });
  return { status: res.statusCode, body: res.json() as Json };
}

before(async () => {
  server = await startTestServer();
  admin = await server.registerTenant();
});
after(async () => {
  await server.close();
});

test('a soft-deleted document can be purged by its owner, children included', async () => {
  assert.equal((await call('POST', '/api/v1/documents', { id: 'old', content: 'to be purged' })).status, 201);
  assert.equal(
    (await call('POST', '/api/v1/documents', { id: 'old-child', content: 'child', parent_doc_id: 'old' })).status,
    201,
  );
  assert.equal((await call('DELETE', '/api/v1/documents/old?recursive=true')).status, 200);
  assert.equal((await call('GET', '/api/v1/documents/old')).status, 404);
  assert.equal((await call('DELETE', '/api/v1/documents/old')).status, 404, 'a second soft delete: nothing to hide');
  const other = await server.addUser(admin);
  assert.equal((await call('DELETE', '/api/v1/documents/old?permanent=true', undefined, other.token)).status, 404);
  const purged = await call('DELETE', '/api/v1/documents/old?permanent=true&recursive=true');
  assert.equal(purged.status, 200, JSON.stringify(purged.body));
  // Purged: the id is free and nothing of the old document remains, not even the child.
  assert.equal((await call('POST', '/api/v1/documents', { id: 'old', content: 'new' })).status, 201);
  const fresh = await call('GET', '/api/v1/documents/old');
  assert.equal((fresh.body.document as { version: number }).version, 1);
  assert.equal((await call('DELETE', '/api/v1/documents/old-child?permanent=true')).status, 404);
});
