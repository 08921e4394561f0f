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

test('hybrid and smart search show each chunk once, with a fused score', async () => {
  const docs = [
    {
      id: 'shock',
      title: 'Shock waves',
      content: 'Interaction of shock waves with the boundary layer causes the flow to separate near the shock.',
    },
    { id: 'wing', title: 'Delta wings', content: 'Lift and drag of slender delta wings at high angles of attack.' },
    { id: 'pipe', title: 'Pipes', content: 'Convective heat transfer of turbulent flow inside circular pipes.' },
  ];
  const added = await call('POST', '/api/v1/documents/batch', docs);
  assert.equal(added.status, 200, JSON.stringify(added.body));
  for (const [url, body] of [
    ['/api/v1/search/hybrid', { query: 'why does flow separate near a shock' }],
    ['/api/v1/search/hybrid', { query: 'why does flow separate near a shock', fusion: 'rrf' }],
    ['/api/v1/search/smart', { query: 'why does flow separate near a shock' }],
  ] as const) {
    const res = await call('POST', url, body);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const results = res.body.results as {
      document_id: string;
      chunks: { id: string; score: number; metadata: Record<string, number> }[];
    }[];
    // The specification's result shape: chunks carry their metadata (where they lie in the document).
    assert.deepEqual(results[0]?.chunks[0]?.metadata, { chunk_index: 0, start_offset: 0, end_offset: 94 });
    assert.equal(results[0]?.document_id, 'shock', url);
    for (const r of results) {
      const ids = r.chunks.map((c) => c.id);
      assert.deepEqual(ids, [...new Set(ids)], `${url} ${JSON.stringify(body)}: a chunk shown twice`);
    }
  }
});

test('issue #22: a parent cycle cannot be made, and filters given as JSON text holding null answer 400', async () => {
  assert.equal((await call('POST', '/api/v1/documents', { id: 'loop-a', content: 'a' })).status, 201);
  assert.equal(
    (await call('POST', '/api/v1/documents', { id: 'loop-b', content: 'b', parent_doc_id: 'loop-a' })).status,
    201,
  );
  const cycle = await call('POST', '/api/v1/documents', { id: 'loop-a', content: 'a again', parent_doc_id: 'loop-b' });
  assert.equal(cycle.status, 400, JSON.stringify(cycle.body));
  assert.equal(cycle.body.error?.field, 'body.parent_doc_id');
  const self = await call('POST', '/api/v1/documents', { id: 'loop-c', content: 'c', parent_doc_id: 'loop-c' });
  assert.equal(self.status, 404, 'its own parent does not exist yet');
  assert.equal((await call('DELETE', '/api/v1/documents/loop-a?recursive=true')).status, 200);
  for (const filters of ['[null]', 'null', '[1]']) {
    const res = await call('POST', '/api/v1/search/text', { query: 'a', filters });
    assert.ok(res.status === 400 || res.status === 200, `${filters}: ${res.status}`);
  }
  const bad = await call('POST', '/api/v1/search/text', { query: 'a', filters: '[null]' });
  assert.equal(bad.status, 400);
  assert.equal(bad.body.error?.field, 'body.filters[0]');
});

test('a JSON body sent as text/plain answers 415 saying to send application/json', async () => {
  for (const type of ['text/plain', 'text/plain;charset=UTF-8']) {
    const res = await server.app.inject({
      method: 'POST',
      url: '/api/v1/search/text',
      headers: { ...bearer(admin.token), 'content-type': type },
      payload: '{"query":"shock"}',
    });
    assert.equal(res.statusCode, 415, res.body);
    assert.match((res.json() as Json).error!.message, /send application\/json/);
  }
});

test('ACL errors say what is wrong: remove needs no role, the sole owner, role_id named', async () => {
  const colleague = await server.addUser(admin);
  assert.equal((await call('POST', '/api/v1/documents', { id: 'acl-doc', content: 'shared notes' })).status, 201);
  const added = await call('PUT', '/api/v1/documents/acl-doc/acl', {
    operation: 'add',
    acl: [{ user_id: colleague.userId, role: 'view' }],
  });
  assert.equal(added.status, 200, JSON.stringify(added.body));
  const removed = await call('PUT', '/api/v1/documents/acl-doc/acl', {
    operation: 'remove',
    acl: [{ user_id: colleague.userId }],
  });
  assert.equal(removed.status, 200, JSON.stringify(removed.body));
  const roleless = await call('PUT', '/api/v1/documents/acl-doc/acl', {
    operation: 'add',
    acl: [{ user_id: colleague.userId }],
  });
  assert.equal(roleless.status, 400);
  assert.equal(roleless.body.error?.field, 'body.acl[0].role');
  const demoteOwner = await call('PUT', '/api/v1/documents/acl-doc/acl', {
    operation: 'add',
    acl: [{ user_id: admin.userId, role: 'edit' }],
  });
  assert.equal(demoteOwner.status, 400);
  assert.equal(demoteOwner.body.error?.code, 'LAST_OWNER');
  assert.match(demoteOwner.body.error?.message ?? '', /must keep an owner: this change leaves it with none/);
  const badRole = await call('POST', '/auth/role/assign', { user_id: colleague.userId, role_id: 'wizard' });
  assert.equal(badRole.status, 400);
  assert.equal(badRole.body.error?.field, 'body.role_id');
});

test('issue #22 review: a client vector is compared by direction, and a float32 overflow or a zero vector is a 400', async () => {
  const doc = await server.app.inject({
    url: '/api/v1/documents/shock?include_embeddings=true',
    headers: bearer(admin.token),
  });
  const vector = (doc.json() as { document: { embeddings: { vector: number[] }[] } }).document.embeddings[0]!.vector;
  for (const scale of [0.3, 10]) {
    const res = await call('POST', '/api/v1/search/vector', { vector: vector.map((x) => x * scale), limit: 1 });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const top = (res.body.results as { document_id: string; score: number }[])[0];
    assert.equal(top?.document_id, 'shock', `scaled by ${scale}`);
    assert.ok(Math.abs(top.score - 1) < 1e-4, `a cosine, whatever the length: ${top.score}`);
  }
  const overflow = await call('POST', '/api/v1/search/vector', { vector: vector.map((x, i) => (i === 0 ? 1e39 : x)) });
  assert.equal(overflow.status, 400);
  assert.match(overflow.body.error?.message ?? '', /float32 range/);
  const zero = await call('POST', '/api/v1/search/vector', { vector: vector.map(() => 0) });
  assert.equal(zero.status, 400);
});
