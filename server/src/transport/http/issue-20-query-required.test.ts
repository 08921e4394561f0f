import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { bearer, startTestServer, type TestServer } from '../../test-support/server.js';

let server: TestServer;
let token: string;
before(async () => {
  server = await startTestServer();
  token = (await server.registerTenant()).token;
});
after(async () => {
  await server.close();
});

// The reference marks `query` required on these operations; a missing query and a blank one answer alike, with
// the specification's exact message.
test('text, fuzzy and the search box answer QUERY_REQUIRED for a missing or blank query', async () => {
  for (const [method, url, payload] of [
    ['POST', '/api/v1/search/text', {}],
    ['POST', '/api/v1/search/text', { query: '   ' }],
    ['POST', '/search/fuzzy', { fuzziness: 1 }],
    ['POST', '/search/fuzzy', { query: '' }],
  ] as const) {
    const res = await server.app.inject({ method, url, headers: bearer(token), payload });
    assert.equal(res.statusCode, 400, `${url} ${JSON.stringify(payload)}`);
    const { error } = res.json() as { error: { code: string; message: string; field: string } };
    assert.equal(error.code, 'QUERY_REQUIRED');
    assert.equal(error.message, "query parameter 'query' is required");
    assert.equal(error.field, 'body.query');
  }
  const box = await server.app.inject({ method: 'GET', url: '/api/v1/search?limit=3', headers: bearer(token) });
  assert.equal(box.statusCode, 400);
  assert.equal((box.json() as { error: { code: string } }).error.code, 'QUERY_REQUIRED');
});

test('smart search without a query still routes a point to geo', async () => {
  const res = await server.app.inject({
    method: 'POST',
    url: '/search/smart',
    headers: bearer(token),
    payload: { lat: 52.52, lon: 13.405, radius: 5 },
  });
  assert.equal(res.statusCode, 200, res.body);
  assert.equal((res.json() as { route: string }).route, 'geo');
});
