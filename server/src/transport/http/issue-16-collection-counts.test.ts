// Collection info counts the documents its caller may read: a scan of the collection with the access rule, so it is
// kept until anything is written or a grant it counted expires. These tests check it is never stale for either.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../../test-support/server.js';

let server: TestServer;
let admin: Awaited<ReturnType<TestServer['registerTenant']>>;
let reader: Awaited<ReturnType<TestServer['addUser']>>;
let nowMs = Date.parse('2026-11-24T00:00:00Z');
const nowSeconds = () => Math.floor(nowMs / 1000);

const call: TestServer['call'] = (...args) => server.call(...args);
const counts = async (token: string) => {
  const { status, body } = await call('GET', '/api/v1/collections/notes', token);
  assert.equal(status, 200, JSON.stringify(body));
  return { documents: body.documents, chunks: body.chunks };
};

before(async () => {
  server = await startTestServer({}, { now: () => nowMs });
  admin = await server.registerTenant();
  reader = await server.addUser(admin);
});
after(async () => {
  await server.close();
});

test('collection counts follow every write and every expiring grant, with nothing else happening', async () => {
  const add = (id: string, extra: object = {}) =>
    call('POST', '/api/v1/documents', admin.token, { id, primary_table: 'notes', content: `note ${id}`, ...extra });
  assert.equal((await add('a')).status, 201);
  assert.equal((await add('b')).status, 201);
  assert.deepEqual(await counts(admin.token), { documents: 2, chunks: 2 });
  assert.deepEqual(await counts(admin.token), { documents: 2, chunks: 2 }); // asked again: the same

  // A private document the reader may see for one minute.
  const created = await add('c', {
    visibility: 'private',
    acl: [{ user_id: reader.userId, role: 'view', expires_at: nowSeconds() + 60 }],
  });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  assert.deepEqual(await counts(admin.token), { documents: 3, chunks: 3 });
  const before = await counts(reader.token);
  assert.equal((before.documents as number) >= 1, true);
  // The grant expires: nothing is written, yet the reader's count drops at once.
  nowMs += 61_000;
  const afterExpiry = await counts(reader.token);
  assert.equal(afterExpiry.documents, (before.documents as number) - 1);

  assert.equal((await call('DELETE', '/api/v1/documents/a', admin.token)).status, 200);
  assert.deepEqual(await counts(admin.token), { documents: 2, chunks: 2 });
  assert.equal((await add('b', { content: 'note b, longer now' })).status < 300, true); // a new version of b
  assert.deepEqual(await counts(admin.token), { documents: 2, chunks: 2 });
});
