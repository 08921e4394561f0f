import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { bearer, startTestServer, type TestServer } from '../../test-support/server.js';

// Found by the Python client's tests (issue #19): when a tenant's very first write rolled back (an NDJSON import
// whose group held a line refused inside the transaction), its text tables were forgotten by SQLite but not by the
// text index, so every later write and text search of that tenant answered 500 until a restart.

let server: TestServer;
before(async () => {
  server = await startTestServer();
});
after(async () => {
  await server.close();
});

test('a first import whose transaction rolls back writes its good lines, and the tenant keeps working', async () => {
  const admin = await server.registerTenant();
  const created = await server.app.inject({
    method: 'POST',
    url: '/api/v1/collections',
    headers: bearer(admin.token),
    payload: { name: 'shapes', vectors: { v: { dimensions: 2 } } },
  });
  assert.equal(created.statusCode, 201, created.body);
  const lines = [
    { id: 'good', title: 'Round shape', primary_table: 'shapes', vector: [1, 1] },
    { id: 'bad', title: 'Square shape', primary_table: 'shapes', vector: [1, 2, 3] },
  ];
  const imported = await server.app.inject({
    method: 'POST',
    url: '/api/v1/documents/import',
    headers: { ...bearer(admin.token), 'content-type': 'application/x-ndjson' },
    payload: lines.map((line) => JSON.stringify(line)).join('\n'),
  });
  assert.equal(imported.statusCode, 200);
  const results = imported.body
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { line: number; success: boolean; error?: { code: string; field?: string } });
  assert.deepEqual(
    results.map((r) => [r.line, r.success, r.error?.code, r.error?.field]),
    [
      [1, true, undefined, undefined],
      [2, false, 'INVALID_VECTOR_FORMAT', 'line[2].vector'],
    ],
  );

  const added = await server.app.inject({
    method: 'POST',
    url: '/api/v1/documents',
    headers: bearer(admin.token),
    payload: { id: 'later', title: 'Another round shape', primary_table: 'shapes', vector: [1, 0] },
  });
  assert.equal(added.statusCode, 201, added.body);
  const found = await server.app.inject({
    method: 'POST',
    url: '/api/v1/search/text',
    headers: bearer(admin.token),
    payload: { query: 'round', primary_table: 'shapes' },
  });
  assert.equal(found.statusCode, 200, found.body);
  const ids = (found.json() as { results: { document_id: string }[] }).results.map((r) => r.document_id);
  assert.deepEqual(ids.sort(), ['good', 'later']);
});
