import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { bearer, startTestServer, type TestServer } from '../../test-support/server.js';
import type { LineResult } from '../../test-support/ndjson-import.js';

// Issue #40 (decision 0079): one import group is one write, and the writer keeps the collections it reads for that
// write. A collection the group itself creates or extends must be seen, as it is, by the group's later lines.

describe('import writes one group on the collections as its lines change them (issue #40)', () => {
  let server: TestServer;
  let token: string;
  let base: string;

  before(async () => {
    server = await startTestServer();
    ({ token } = await server.registerTenant());
    base = await server.listen();
  });
  after(async () => server.close());

  test('vectors added by earlier lines of a group decide its later lines; the collection ends as written', async () => {
    const line = (id: string, vectors: Record<string, number[]>) =>
      JSON.stringify({ id, primary_table: 'grown', title: `Document ${id}`, content: 'Lines of one group.', vectors });
    const body = [
      line('g1', { a: [1, 0, 0] }), // creates the implicit collection with `a` (3 dimensions)
      line('g2', { b: [0, 1] }), // adds `b` (2 dimensions)
      line('g3', { a: [1, 0] }), // `a` has 3 dimensions now: refused
      line('g4', { b: [1, 1], a: [0, 0, 1] }),
    ].join('\n');
    const res = await fetch(`${base}/api/v1/documents/import?batch_size=500`, {
      method: 'POST',
      headers: { ...bearer(token), 'content-type': 'application/x-ndjson' },
      body,
    });
    assert.equal(res.status, 200);
    const lines = (await res.text())
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as LineResult);
    assert.deepEqual(
      lines.map((l) => [l.line, l.success, l.error?.code]),
      [
        [1, true, undefined],
        [2, true, undefined],
        [3, false, 'INVALID_VECTOR_FORMAT'],
        [4, true, undefined],
      ],
    );
    const collection = await server.call('GET', '/api/v1/collections/grown', token);
    assert.equal(collection.status, 200, collection.text);
    const vectors = (collection.body as { vectors: Record<string, { dimensions: number }> }).vectors;
    // (The implicit collection also holds the model vector its content is embedded with.)
    assert.deepEqual([vectors.a?.dimensions, vectors.b?.dimensions], [3, 2]);
    const found = await server.call('POST', '/api/v1/search/vector', token, {
      vector: [1, 0, 2],
      primary_table: 'grown',
      vector_name: 'a',
      limit: 5,
      threshold: 0,
    });
    assert.equal(found.status, 200, found.text);
    const ids = (found.body as { results: { document_id: string }[] }).results.map((r) => r.document_id);
    assert.deepEqual(ids, ['g4', 'g1']);
  });
});
