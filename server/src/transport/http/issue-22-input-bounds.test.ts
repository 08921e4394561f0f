import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { inputLimits } from '@godb/contract';
import { bearer, startTestServer, type TestServer } from '../../test-support/server.js';

// Issue #22: numbers like 1e309 passed the integer checks as Infinity, created_at 1e308 reached SQLite (500),
// join_conditions [null] and filters [null] crashed their parsers, ids of 101–256 characters could be created but not read, and
// lists (table_names, facets) had no length at all. Each now answers 400 naming the field, or works.

let server: TestServer;
let admin: Awaited<ReturnType<TestServer['registerTenant']>>;

type ErrorAnswer = { error?: { code: string; field?: string; message: string } };

async function send(method: 'GET' | 'POST', url: string, payload?: string | object) {
  const res = await server.app.inject({
    method,
    url,
    headers: { ...bearer(admin.token), ...(typeof payload === 'string' && { 'content-type': 'application/json' }) },
    ...(payload !== undefined && { payload }),
  });
  return { status: res.statusCode, body: res.json() as ErrorAnswer & Record<string, unknown> };
}

function assertField(answer: { status: number; body: ErrorAnswer }, field: string) {
  assert.equal(answer.status, 400, JSON.stringify(answer.body));
  assert.equal(answer.body.error?.code, 'VALIDATION_FAILED');
  assert.equal(answer.body.error?.field, field);
}

before(async () => {
  server = await startTestServer();
  admin = await server.registerTenant();
});
after(() => server.close());

test('numbers beyond double range (1e309 is Infinity in JSON) are refused, in bodies and query strings', async () => {
  assertField(await send('POST', '/api/v1/search/text', '{"query":"wing","limit":1e309}'), 'body.limit');
  assertField(await send('POST', '/api/v1/graph/query', '{"start_node_id":"a","depth":1e309}'), 'body.depth');
  assertField(await send('POST', '/api/v1/search/graph', '{"query_type":"bfs","depth":-1e309}'), 'body.depth');
  assertField(await send('GET', '/auth/users?limit=1e309'), 'query.limit');
  assertField(await send('GET', '/auth/users?offset=1e309'), 'query.offset');
  assertField(await send('POST', '/api/v1/search/geo', '{"lat":0,"lon":0,"radius":1e309}'), 'body.radius');
});

test('dates far outside any calendar answer 400, not a storage error', async () => {
  const doc = { title: 't', content: 'c', embedding_options: { enabled: false } };
  assertField(await send('POST', '/api/v1/documents', { ...doc, created_at: 1e308 }), 'body.created_at');
  assertField(await send('POST', '/api/v1/documents', { ...doc, updated_at: 1e20 }), 'body.updated_at');
  const latest = await send('POST', '/api/v1/documents', { ...doc, created_at: inputLimits.unixSeconds });
  assert.equal(latest.status, 201, JSON.stringify(latest.body));
});

test('ids of the longest length can be created and read back, earlier versions too; longer ones are refused', async () => {
  for (const id of ['x'.repeat(inputLimits.id), 'é'.repeat(inputLimits.id), '文'.repeat(inputLimits.id)]) {
    for (const content of ['first version', 'second version']) {
      const created = await send('POST', '/api/v1/documents', { id, content, embedding_options: { enabled: false } });
      assert.equal(created.status, 201, JSON.stringify(created.body));
    }
    for (const path of [id, `${id}@v1`]) {
      const read = await send('GET', `/api/v1/documents/${encodeURIComponent(path)}`);
      assert.equal(read.status, 200, `${path.length} characters: ${JSON.stringify(read.body)}`);
    }
  }
  assertField(await send('POST', '/api/v1/documents', { id: 'y'.repeat(inputLimits.id + 1), content: 'x' }), 'body.id');
  const tooLong = 'y'.repeat(inputLimits.pathId + 1);
  assertField(await send('GET', `/api/v1/documents/${tooLong}`), 'params.id');
  assertField(await send('GET', `/api/v1/jobs/${tooLong}`), 'params.id');
});

test('lists have a length: table names, facets, node ids, filters and join conditions', async () => {
  const many = (n: number) => Array.from({ length: n }, (_v, i) => `t${i}`);
  assertField(
    await send('POST', '/api/v1/search/multi-table', { table_names: many(inputLimits.tables + 1) }),
    'body.table_names',
  );
  assertField(
    await send('POST', '/api/v1/search/faceted', { query: 'x', facets: many(inputLimits.facets + 1) }),
    'body.facets',
  );
  assertField(
    await send('POST', '/api/v1/search/graph', { query_type: 'centrality', node_ids: many(inputLimits.nodeIds + 1) }),
    'body.node_ids',
  );
  const filter = { field: 'tags', operator: 'eq', value: 'x' };
  assertField(
    await send('POST', '/api/v1/search/text', { query: 'x', filters: Array(inputLimits.filters + 1).fill(filter) }),
    'body.filters',
  );
  assertField(
    await send('POST', '/api/v1/search/multi-table', { table_names: ['documents'], join_conditions: [null] }),
    'body.join_conditions[0]',
  );
  assertField(await send('POST', '/api/v1/search/text', { query: 'x', filters: [null] }), 'body.filters[0]');
  assertField(await send('POST', '/api/v1/search/vector', { query: 'x', filters: ['tags'] }), 'body.filters[0]');
});

test('query strings have a length a search box never reaches', async () => {
  // Issue #37: keyword queries are as long as embedded ones may be (their cost is bounded by their terms instead).
  assert.equal(inputLimits.keywordQuery, inputLimits.semanticQuery);
  assertField(
    await send('POST', '/api/v1/search/fuzzy', { query: 'a'.repeat(inputLimits.keywordQuery + 1) }),
    'body.query',
  );
  assertField(
    await send('POST', '/api/v1/search/smart', { query: 'a '.repeat(inputLimits.semanticQuery) }),
    'body.query',
  );
  const longest = await send('POST', '/api/v1/search/text', {
    query: 'wing '.repeat(inputLimits.keywordQuery / 5).trim(),
    query_type: 'match',
  });
  assert.equal(longest.status, 200, JSON.stringify(longest.body));
});
