import { test } from 'node:test';
import assert from 'node:assert/strict';
import { serverForFile } from '../../test-support/file-server.js';

const file = serverForFile();

// The reference marks `query` required on these operations; a missing query and a blank one answer alike, with
// the specification's exact message.
test('text, fuzzy and the search box answer QUERY_REQUIRED for a missing or blank query', async () => {
  for (const [method, url, payload] of [
    ['POST', '/api/v1/search/text', {}],
    ['POST', '/api/v1/search/text', { query: '   ' }],
    ['POST', '/search/fuzzy', { fuzziness: 1 }],
    ['POST', '/search/fuzzy', { query: '' }],
  ] as const) {
    const res = await file.server.call(method, url, file.admin.token, payload);
    assert.equal(res.status, 400, `${url} ${JSON.stringify(payload)}`);
    const { code, message, field } = res.body.error ?? {};
    assert.deepEqual(
      { code, message, field },
      {
        code: 'QUERY_REQUIRED',
        message: "query parameter 'query' is required",
        field: 'body.query',
      },
    );
  }
  const box = await file.server.call('GET', '/api/v1/search?limit=3', file.admin.token);
  assert.equal(box.status, 400);
  assert.equal(box.body.error?.code, 'QUERY_REQUIRED');
});

test('smart search without a query still routes a point to geo', async () => {
  const res = await file.server.call('POST', '/search/smart', file.admin.token, { lat: 52.52, lon: 13.405, radius: 5 });
  assert.equal(res.status, 200, res.text);
  assert.equal(res.body.route, 'geo');
});
