import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { bearer, startTestServer, type TestServer } from '../../test-support/server.js';

// Issue #21 review: a write carries the access stamps it was decided on by document id (`decidedOn`), and the engine
// looked an id up in that plain object, where names of Object.prototype (`constructor`, `toString`, `__proto__` …)
// are always found: a new document with such an id was refused with 409 ACCESS_CHANGED, and so was a write over one.
// Ids are the caller's own strings, and these are valid ids.

let server: TestServer;
let owner: Awaited<ReturnType<TestServer['registerTenant']>>;

const ids = ['constructor', 'toString', 'hasOwnProperty', '__proto__', 'valueOf'];
const doc = (id: string, content = `The ${id}.`) => ({ id, title: id, content, embedding_options: { enabled: false } });

async function call(method: 'POST' | 'GET' | 'PATCH' | 'DELETE', url: string, payload?: unknown) {
  const res = await server.app.inject({
    method,
    url,
    headers: bearer(owner.token),
    ...(payload !== undefined && { payload: payload as object }),
  });
  return { status: res.statusCode, body: res.json() as Record<string, unknown> };
}

before(async () => {
  server = await startTestServer();
  owner = await server.registerTenant();
});
after(() => server.close());

test('documents whose ids are names of Object.prototype are added, written over, updated and deleted', async () => {
  for (const id of ids) {
    const added = await call('POST', '/api/v1/documents', doc(id));
    assert.deepEqual([id, added.status], [id, 201], JSON.stringify(added.body));
    const again = await call('POST', '/api/v1/documents', doc(id, 'A second version.'));
    assert.deepEqual([id, again.status, again.body.version], [id, 201, 2], JSON.stringify(again.body));
  }
  const batch = await call('POST', '/api/v1/documents/batch', [doc('isPrototypeOf'), doc('constructor', 'Third.')]);
  assert.equal(batch.status, 200, JSON.stringify(batch.body));

  const patched = await call('PATCH', '/api/v1/documents/toString', { title: 'Renamed' });
  assert.equal(patched.status, 200, JSON.stringify(patched.body));
  const read = await call('GET', '/api/v1/documents/toString');
  assert.equal((read.body.document as { title: string }).title, 'Renamed');

  const deleted = await call('DELETE', '/api/v1/documents/valueOf?permanent=true');
  assert.equal(deleted.status, 200, JSON.stringify(deleted.body));
  assert.equal((await call('GET', '/api/v1/documents/valueOf')).status, 404);
});
