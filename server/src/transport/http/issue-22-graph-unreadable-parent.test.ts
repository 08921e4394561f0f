import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { bearer, startTestServer, type TestServer } from '../../test-support/server.js';

// Issue #22: once a child's parent was unreadable to the caller (private, or deleted), every graph query of the
// tenant with edge_type "*" answered 500, because the graph builder checked an edge's target but not its source.

let server: TestServer;
let admin: Awaited<ReturnType<TestServer['registerTenant']>>;
let reader: Awaited<ReturnType<TestServer['addUser']>>;

type GraphBody = { nodes?: { id: string }[]; edges?: { source: string; target: string }[]; error?: { code: string } };

async function post(url: string, payload: object, token: string) {
  const res = await server.app.inject({ method: 'POST', url, headers: bearer(token), payload });
  return { status: res.statusCode, body: res.json() as GraphBody };
}

const doc = (id: string, extra: object = {}) => ({
  id,
  title: id,
  content: `graph document ${id}`,
  embedding_options: { enabled: false },
  ...extra,
});

before(async () => {
  server = await startTestServer();
  admin = await server.registerTenant();
  reader = await server.addUser(admin);
  for (const body of [
    doc('secret-parent', { visibility: 'private' }),
    doc('open-child', { parent_doc_id: 'secret-parent', edges: [{ target_id: 'open-peer' }] }),
    doc('gone-parent'),
    doc('orphan-child', { parent_doc_id: 'gone-parent' }),
    doc('open-peer'),
  ]) {
    const res = await server.call('POST', '/api/v1/documents', admin.token, body);
    assert.equal(res.status, 201, res.text);
  }
  const deleted = await server.call('DELETE', '/api/v1/documents/gone-parent', admin.token);
  assert.equal(deleted.status, 200, deleted.text);
});
after(() => server.close());

test('graph queries over every edge type answer a reader who cannot see a child’s parent, without the parent', async () => {
  const calls = [
    ['/api/v1/search/graph', { query_type: 'bfs', edge_type: '*', start_node_id: 'open-child', depth: 3 }],
    ['/api/v1/search/graph', { query_type: 'centrality', centrality_type: 'degree', edge_type: '*' }],
    ['/api/v1/graph/query', { start_node_id: 'open-child', depth: 3, query_type: 'bfs' }],
  ] as const;
  for (const [url, payload] of calls) {
    const res = await post(url, payload, reader.token);
    assert.equal(res.status, 200, `${url} ${JSON.stringify(res.body)}`);
    const seen = JSON.stringify([res.body.nodes, res.body.edges]);
    assert.ok(!seen.includes('secret-parent'), `${url} reveals the private parent: ${seen}`);
    assert.ok(!seen.includes('gone-parent'), `${url} shows a deleted parent: ${seen}`);
  }
  // The owner still sees the parent relation.
  const own = await post(
    '/api/v1/search/graph',
    { query_type: 'bfs', edge_type: '*', start_node_id: 'open-child' },
    admin.token,
  );
  assert.equal(own.status, 200);
  assert.ok(own.body.nodes?.some((n) => n.id === 'secret-parent'));
});

test('centrality over node_ids that repeat an id counts it once', async () => {
  const res = await post(
    '/api/v1/search/graph',
    {
      query_type: 'centrality',
      centrality_type: 'pagerank',
      edge_type: '*',
      node_ids: ['open-child', 'open-peer', 'open-child', 'open-peer', 'open-child'],
    },
    admin.token,
  );
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.deepEqual(res.body.nodes?.map((n) => n.id).sort(), ['open-child', 'open-peer']);
});
