import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startNatsCluster, type NatsCluster } from '../../test-support/nats-cluster.js';
import { bearer, startTestServer, type TestServer } from '../../test-support/server.js';

// Issue #21 review: a write is decided on the documents as they are before it runs (`decidedOn`), so one group of an
// NDJSON import that held the same id twice was refused as a whole (the second line met the version the first had
// just written: 409 ACCESS_CHANGED), then split in halves until the two lines stood apart. Every line was written in
// the end, but the refused attempts cost a transaction each, and in cluster mode an operation of the replicated log
// that every node applied and refused. A line that repeats an id of its group now starts the next group.

let nats: NatsCluster;
let server: TestServer;
let token: string;

before(async () => {
  nats = await startNatsCluster();
  server = await startTestServer({
    NATS_URL: nats.url,
    NODE_ID: 'a',
    JWT_SECRET: 'a-cluster-wide-secret-of-32-characters-or-more',
  });
  token = (await server.registerTenant()).token;
});
after(async () => {
  await server?.close();
  await nats?.stop();
});

const line = (id: string, content: string) =>
  JSON.stringify({ id, title: id, content, embedding_options: { enabled: false } });

test('an import whose lines repeat an id writes every line, one log operation per group and none refused', async () => {
  const first = await server.cluster!.lastSequence();
  const res = await server.app.inject({
    method: 'POST',
    url: '/api/v1/documents/import',
    headers: { ...bearer(token), 'content-type': 'application/x-ndjson' },
    payload: [line('x', 'First.'), line('y', 'Other.'), line('x', 'Second.')].join('\n'),
  });
  assert.equal(res.statusCode, 200, res.body);
  const results = res.body
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { line: number; success: boolean });
  assert.deepEqual(
    results.map((r) => [r.line, r.success]),
    [
      [1, true],
      [2, true],
      [3, true],
    ],
  );
  const x = await server.app.inject({ method: 'GET', url: '/api/v1/documents/x', headers: bearer(token) });
  const doc = (x.json() as { document: { version: number; content: string } }).document;
  assert.deepEqual([doc.version, doc.content], [2, 'Second.']);
  // Lines 1 and 2 in one write, line 3 in the next: two operations, where the group of three and its halves took three.
  assert.equal((await server.cluster!.lastSequence()) - first, 2);
});
