import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { operations } from '@godb/contract';
import { createUseCases } from '../../service/use-cases.js';
import { startTestServer, type TestServer } from '../../test-support/server.js';
import { toFastifyPath } from './operation-routes.js';

let server: TestServer;
before(async () => {
  server = await startTestServer();
});
after(async () => {
  await server.close();
});

test('every operation of the catalogue has a use case or an explicit pending issue, and nothing else does', () => {
  const table = createUseCases({} as never);
  assert.deepEqual(Object.keys(table).sort(), operations.map((o) => o.id).sort());
});

test('the server serves every operation at its path and at every alias', () => {
  for (const operation of operations) {
    for (const path of [operation.http.path, ...operation.http.aliases]) {
      assert.ok(
        server.app.hasRoute({ method: operation.http.method, url: toFastifyPath(path) }),
        `${operation.http.method} ${path}`,
      );
    }
  }
});

test('the OpenAPI document lists exactly the catalogue’s operations', async () => {
  const res = await server.app.inject({ method: 'GET', url: '/api/v1/openapi.json' });
  assert.equal(res.statusCode, 200);
  const doc = res.json() as {
    openapi: string;
    paths: Record<string, Record<string, { operationId: string; 'x-aliases': string[] }>>;
  };
  assert.equal(doc.openapi, '3.1.0');
  const listed = Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => `${op.operationId} ${method.toUpperCase()} ${path}`),
  );
  const expected = operations.map((o) => `${o.id} ${o.http.method} ${o.http.path}`);
  assert.deepEqual(listed.sort(), expected.sort());
});

test('an operation whose feature has not landed answers 501 with a clear error, never fake data', async () => {
  const { token } = await server.registerTenant();
  for (const operation of operations) {
    const pending = server.services.pendingIssue(operation.id);
    if (pending === undefined) continue;
    const example = operation.examples[0];
    let url = operation.http.path;
    for (const [name, value] of Object.entries(example.params ?? {}))
      url = url.replace(`{${name}}`, encodeURIComponent(value));
    const res = await server.app.inject({
      method: operation.http.method,
      url,
      headers: { authorization: `Bearer ${token}` },
      query: Object.fromEntries(Object.entries(example.query ?? {}).map(([k, v]) => [k, String(v)])),
      ...(example.body !== undefined && { payload: example.body as object }),
    });
    // Admin-only operations answer 501 to admins too: the registered tenant admin is used here.
    assert.equal(res.statusCode, 501, `${operation.id}: ${res.body}`);
    const body = res.json() as { error: { code: string; message: string } };
    assert.equal(body.error.code, 'NOT_IMPLEMENTED');
    assert.equal(
      body.error.message,
      `${operation.http.method} ${operation.http.path} is not implemented yet (tracked in issue #${pending})`,
    );
  }
});
