import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { operations } from '@godb/contract';
import { exampleRequest } from '../../test-support/example-request.js';
import { startTestServer, superAdmin, type TestServer } from '../../test-support/server.js';

// Issue #37: a query parameter no operation declares is refused everywhere, as the operations with query parameters
// (GET /api/v1/documents/{id}) already did: `POST /api/v1/search/text?consistency=strong` was answered as if the
// parameter was not there, so the caller believed it read strongly (the option is the X-GoDB-Consistency header).

let server: TestServer;
let user: string;
let root: string;
before(async () => {
  server = await startTestServer();
  user = (await server.registerTenant()).token;
  root = await server.login(superAdmin.email, superAdmin.password);
});
after(() => server?.close());

const unknownField = (name: string) => ({
  code: 'VALIDATION_FAILED',
  message: `query.${name} is not a known field: check its spelling against the API reference`,
  status: 400,
  field: `query.${name}`,
});

test('POST /api/v1/search/text?consistency=strong is refused, naming the parameter', async () => {
  const res = await server.call('POST', '/api/v1/search/text?consistency=strong', user, { query: 'wing' });
  assert.equal(res.status, 400, res.text);
  const { request_id: _id, ...error } = res.body.error as Record<string, unknown>;
  assert.deepEqual(error, unknownField('consistency'));
  // The same search without it is answered.
  assert.equal((await server.call('POST', '/api/v1/search/text', user, { query: 'wing' })).status, 200);
});

test('a GET without query parameters refuses one as a GET with query parameters does, with the same error', async () => {
  const withQuery = await server.call('GET', '/api/v1/documents/doc-1?foo=1', user);
  const withoutQuery = await server.call('GET', '/api/v1/collections?foo=1', user);
  for (const res of [withQuery, withoutQuery]) {
    assert.equal(res.status, 400, res.text);
    const { request_id: _id, ...error } = res.body.error as Record<string, unknown>;
    assert.deepEqual(error, unknownField('foo'));
  }
  // Declared parameters are still taken.
  assert.equal((await server.call('GET', '/api/v1/collections', user)).status, 200);
  assert.equal((await server.call('GET', '/api/v1/search?query=wing&limit=3', user)).status, 200);
});

test('every operation, at its path and each alias, refuses a query parameter it does not declare', async () => {
  const accepted: string[] = [];
  for (const operation of operations) {
    for (const path of [operation.http.path, ...operation.http.aliases]) {
      const token = operation.access === 'superadmin' ? root : user;
      const res = await server.app.inject(exampleRequest(operation, { token, path, query: { godb_unknown: '1' } }));
      const body = res.json() as { error?: Record<string, unknown> };
      const { request_id: _id, ...error } = body.error ?? {};
      if (res.statusCode !== 400 || body.error?.field !== 'query.godb_unknown') {
        accepted.push(`${operation.http.method} ${path}: ${res.statusCode} ${res.body.slice(0, 200)}`);
      } else {
        assert.deepEqual(error, unknownField('godb_unknown'), `${operation.http.method} ${path}`);
      }
    }
  }
  assert.deepEqual(accepted, []);
});
