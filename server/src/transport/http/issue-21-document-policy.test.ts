import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { bearer, startTestServer, type HttpMethod, type TestServer } from '../../test-support/server.js';

// Who may change a document's visibility, ACL or fields is decided by the service (document-policy.ts) since
// issue #21, before the engine runs; the answers, and which one comes first when several apply, stay as they were.
type Answer = { status: number; code: string | undefined; message: string | undefined };

let server: TestServer;
let owner: Awaited<ReturnType<TestServer['registerTenant']>>;
let viewer: { userId: string; token: string };

async function call(method: HttpMethod, url: string, token: string, payload?: object): Promise<Answer> {
  const { status, body } = await server.call(method, url, token, payload);
  return { status, code: body.error?.code, message: body.error?.message };
}

before(async () => {
  server = await startTestServer();
  owner = await server.registerTenant();
  viewer = await server.addUser(owner);
  for (const title of ['First', 'Second']) {
    const res = await server.app.inject({
      method: 'POST',
      url: '/api/v1/documents',
      headers: bearer(owner.token),
      payload: {
        id: 'plan',
        title,
        content: 'The plan.',
        visibility: 'private',
        acl: [{ user_id: viewer.userId, role: 'view' }],
        embedding_options: { enabled: false },
      },
    });
    assert.equal(res.statusCode, 201, res.body);
  }
});
after(() => server.close());

test('a reader without the edit role is refused each change with the answer it always had', async () => {
  assert.deepEqual(await call('PUT', '/api/v1/documents/plan/visibility', viewer.token, { visibility: 'public' }), {
    status: 403,
    code: 'FORBIDDEN',
    message: 'Insufficient privileges: changing visibility needs the edit or owner role on the document',
  });
  assert.deepEqual(
    await call('PUT', '/api/v1/documents/plan/acl', viewer.token, {
      operation: 'add',
      acl: [{ user_id: viewer.userId, role: 'owner' }],
    }),
    { status: 403, code: 'ACL_OWNER_REQUIRED', message: 'Insufficient privileges: only owners can modify ACL' },
  );
  assert.deepEqual(await call('PATCH', '/api/v1/documents/plan', viewer.token, { title: 'Mine' }), {
    status: 403,
    code: 'FORBIDDEN',
    message: 'Insufficient privileges: updating a document needs the edit or owner role on it',
  });
});

test('invalid input and unreadable documents are answered before the policy, as before', async () => {
  // An unknown visibility is refused before the document is even looked up.
  const invalid = await call('PUT', '/api/v1/documents/missing/visibility', viewer.token, { visibility: 'everyone' });
  assert.deepEqual([invalid.status, invalid.code], [400, 'INVALID_VISIBILITY']);
  // A document the caller cannot read is not found (never forbidden), for each change.
  const stranger = await server.registerTenant();
  for (const [method, url, payload] of [
    ['PUT', '/api/v1/documents/plan/visibility', { visibility: 'public' }],
    ['PUT', '/api/v1/documents/plan/acl', { operation: 'add', acl: [{ user_id: 'x', role: 'view' }] }],
    ['PATCH', '/api/v1/documents/plan', { title: 'Mine' }],
  ] as const) {
    const answer = await call(method, url, stranger.token, payload);
    assert.deepEqual([answer.status, answer.code], [404, 'NOT_FOUND'], url);
  }
  // An earlier version is refused as one (it cannot be updated by anyone) before the caller's role is looked at.
  const earlier = await call('PATCH', '/api/v1/documents/plan@v1', viewer.token, { title: 'Mine' });
  assert.deepEqual([earlier.status, earlier.code], [400, 'VALIDATION_FAILED']);
});

test('the owner still changes all three, and the changes show', async () => {
  assert.equal(
    (
      await call('PUT', '/api/v1/documents/plan/acl', owner.token, {
        operation: 'update',
        acl: [{ user_id: viewer.userId, role: 'edit' }],
      })
    ).status,
    200,
  );
  assert.equal((await call('PATCH', '/api/v1/documents/plan', viewer.token, { title: 'Third' })).status, 200);
  assert.equal(
    (await call('PUT', '/api/v1/documents/plan/visibility', viewer.token, { visibility: 'public' })).status,
    200,
  );
  const res = await server.app.inject({ method: 'GET', url: '/api/v1/documents/plan', headers: bearer(owner.token) });
  const { document } = res.json() as { document: { title: string; visibility: string; version: number } };
  assert.deepEqual([document.title, document.visibility, document.version], ['Third', 'public', 3]);
});
