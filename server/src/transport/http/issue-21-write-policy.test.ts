import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { bearer, startTestServer, type HttpMethod, type TestServer } from '../../test-support/server.js';

// Who may write over an existing id (edit or owner role) and who may delete (the owner role, on every document a
// recursive delete takes) is decided by the service since issue #21 (document-policy.ts `mayOverwrite`,
// `mayDelete`), on facts read before the write; the engine runs the write only on the access it was decided on.
// A caller without the role is answered as before, on every path that writes an id.
type Answer = { status: number; code: string | undefined; message: string | undefined; field: string | undefined };

let server: TestServer;
let owner: Awaited<ReturnType<TestServer['registerTenant']>>;
let reader: { userId: string; token: string };
let editor: { userId: string; token: string };

async function call(method: HttpMethod, url: string, token: string, payload?: unknown): Promise<Answer> {
  const { status, body } = await server.call(method, url, token, payload);
  return { status, code: body.error?.code, message: body.error?.message, field: body.error?.field };
}

const doc = (id: string, extra: object = {}) => ({
  id,
  title: id,
  content: `The ${id}.`,
  embedding_options: { enabled: false },
  ...extra,
});

before(async () => {
  server = await startTestServer();
  owner = await server.registerTenant();
  reader = await server.addUser(owner);
  editor = await server.addUser(owner);
  const acl = [
    { user_id: reader.userId, role: 'view' },
    { user_id: editor.userId, role: 'edit' },
  ];
  for (const payload of [
    doc('plan', { visibility: 'private', acl }),
    doc('parent', { visibility: 'private', acl: [...acl, { user_id: editor.userId, role: 'owner' }] }),
    doc('child', { visibility: 'private', acl, parent_doc_id: 'parent' }),
  ]) {
    const res = await server.app.inject({
      method: 'POST',
      url: '/api/v1/documents',
      headers: bearer(owner.token),
      payload,
    });
    assert.equal(res.statusCode, 201, res.body);
  }
});
after(() => server.close());

const forbiddenOverwrite = (field: string): Answer => ({
  status: 403,
  code: 'FORBIDDEN',
  message: 'Insufficient privileges: document plan exists and you cannot edit it',
  field,
});

test('a reader writing over a document it cannot edit is refused on every path, and the document stays', async () => {
  assert.deepEqual(await call('POST', '/api/v1/documents', reader.token, doc('plan')), forbiddenOverwrite('body.id'));
  assert.deepEqual(
    await call('POST', '/api/v1/documents/batch', reader.token, [doc('fresh-1'), doc('plan')]),
    forbiddenOverwrite('body[1].id'),
  );
  // The batch is all or nothing: its new document was not written either.
  assert.equal((await call('GET', '/api/v1/documents/fresh-1', reader.token)).status, 404);

  const imported = await server.app.inject({
    method: 'POST',
    url: '/api/v1/documents/import',
    headers: { ...bearer(reader.token), 'content-type': 'application/x-ndjson' },
    payload: [doc('fresh-2'), doc('plan')].map((line) => JSON.stringify(line)).join('\n'),
  });
  assert.equal(imported.statusCode, 200, imported.body);
  const lines = imported.body
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { line: number; success: boolean; error?: { code: string; field: string } });
  assert.deepEqual(
    lines.map((l) => [l.line, l.success, l.error?.code, l.error?.field]),
    [
      [1, true, undefined, undefined],
      [2, false, 'FORBIDDEN', 'line[2].id'],
    ],
  );

  const plan = await server.app.inject({ method: 'GET', url: '/api/v1/documents/plan', headers: bearer(owner.token) });
  assert.equal((plan.json() as { document: { version: number } }).document.version, 1);
});

test('an editor writes over the document, as before', async () => {
  const answer = await server.app.inject({
    method: 'POST',
    url: '/api/v1/documents',
    headers: bearer(editor.token),
    payload: doc('plan', { title: 'Edited' }),
  });
  assert.equal(answer.statusCode, 201, answer.body);
  assert.equal((answer.json() as { version: number }).version, 2);
});

test('deleting needs the owner role on the document and on every child a recursive delete takes', async () => {
  assert.deepEqual(await call('DELETE', '/api/v1/documents/plan', reader.token), {
    status: 403,
    code: 'FORBIDDEN',
    message: 'Insufficient privileges: deleting plan needs the owner role on it',
    field: undefined,
  });
  // The editor owns the parent but only edits the child: the recursive delete names the child and deletes nothing.
  assert.deepEqual(await call('DELETE', '/api/v1/documents/parent?recursive=true', editor.token), {
    status: 403,
    code: 'FORBIDDEN',
    message: 'Insufficient privileges: deleting child needs the owner role on it',
    field: undefined,
  });
  assert.equal((await call('GET', '/api/v1/documents/parent', editor.token)).status, 200);
  // A document the caller cannot read is not found, before any role is looked at.
  const stranger = await server.registerTenant();
  assert.equal((await call('DELETE', '/api/v1/documents/plan', stranger.token)).status, 404);
  // The owner deletes the parent and its child.
  const deleted = await server.app.inject({
    method: 'DELETE',
    url: '/api/v1/documents/parent?recursive=true',
    headers: bearer(owner.token),
  });
  assert.equal(deleted.statusCode, 200, deleted.body);
  assert.match((deleted.json() as { message: string }).message, /with 1 descendant/);
});
