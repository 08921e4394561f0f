import { test } from 'node:test';
import assert from 'node:assert/strict';
import { operations } from './catalogue.js';
import { errorCatalogue, type ErrorCode } from './errors.js';
import { ErrorBody } from './schemas/common.js';
import { createValidator } from './test-support.js';
import { operationErrors } from './openapi.js';

const strict = createValidator({ coerce: false });
const coercing = createValidator({ coerce: true });

test('operation ids are unique, kebab-case and every path is served once', () => {
  const ids = operations.map((o) => o.id);
  assert.equal(new Set(ids).size, ids.length);
  for (const id of ids) assert.match(id, /^[a-z]+(-[a-z]+)*$/);
  const routes = operations.flatMap((o) => [o.http.path, ...o.http.aliases].map((p) => `${o.http.method} ${p}`));
  assert.equal(new Set(routes).size, routes.length, 'a method+path is declared twice');
});

test('the catalogue covers every REST call of api-spec §7', () => {
  const byCategory = (c: string) => operations.filter((o) => o.category === c).length;
  // The specification's 13, POST /auth/users: tenant admins add members (issue #20), and the three API key
  // operations (issue #19).
  assert.equal(byCategory('auth'), 17);
  assert.equal(byCategory('embeddings'), 3);
  const paths = new Set(operations.flatMap((o) => [o.http.path, ...o.http.aliases]));
  for (const path of [
    '/auth/register',
    '/auth/login',
    '/auth/role/assign',
    '/auth/groups',
    '/auth/groups/{groupID}/users',
    '/auth/groups/{groupID}/users/{userID}',
    '/auth/permissions',
    '/auth/groups/{groupID}/permissions',
    '/auth/admin/users',
    '/auth/users/{userID}',
    '/auth/users',
    '/documents',
    '/api/v1/documents',
    '/api/v1/documents/batch',
    '/api/v1/documents/{id}',
    '/api/v1/documents/{id}/engagement',
    '/api/v1/documents/{id}/visibility',
    '/api/v1/documents/{id}/acl',
    '/api/v1/documents/stats',
    '/api/v1/search',
    '/api/v1/indexes/refresh',
    '/api/v1/indexes/recluster',
    '/api/v1/embeddings/models',
    '/embeddings',
    '/embeddings/quantized',
    '/search/autocomplete',
    '/search/text',
    '/search/vector',
    '/search/hybrid',
    '/search/geo',
    '/search/faceted',
    '/search/fuzzy',
    '/search/smart',
    '/search/multi-table',
    '/search/recommendations',
    '/search/graph',
    '/graph/query',
  ]) {
    assert.ok(paths.has(path), `missing ${path}`);
  }
  // Every document, embedding and search route is served in both the bare and the /api/v1 form. Snapshots are
  // not in the specification and have only the /api/v1 form; so has the cluster view (issue #41).
  for (const o of operations.filter((op) => !['auth', 'mail', 'snapshots', 'cluster'].includes(op.category))) {
    const all = [o.http.path, ...o.http.aliases];
    const bare = all.find((p) => !p.startsWith('/api/v1'));
    assert.ok(bare && all.includes(`/api/v1${bare}`), `${o.id} lacks a bare or /api/v1 form`);
  }
});

test('every example request validates against its operation schemas', () => {
  for (const o of operations) {
    for (const example of o.examples) {
      if ('body' in o && o.body) {
        assert.equal(strict(o.body, example.body), null, `${o.id} example "${example.summary}" body`);
      }
      if ('params' in o && o.params) {
        assert.equal(coercing(o.params, example.params ?? {}), null, `${o.id} example params`);
      }
      if ('query' in o && o.query) {
        assert.equal(coercing(o.query, example.query ?? {}), null, `${o.id} example query`);
      }
    }
  }
});

test('every example response validates against the success schema or the error body', () => {
  for (const o of operations) {
    for (const example of o.examples) {
      const schema =
        [o.success, ...(o.alternatives ?? [])].find((r) => r.status === example.response.status)?.schema ?? ErrorBody;
      assert.equal(strict(schema, example.response.body), null, `${o.id} example "${example.summary}" response`);
    }
  }
});

test('every error code has an HTTP and a gRPC status and is reachable from some operation', () => {
  const reachable = new Set<ErrorCode>(operations.flatMap((o) => operationErrors(o)));
  reachable.add('ROUTE_NOT_FOUND');
  reachable.add('REQUEST_TIMEOUT');
  reachable.add('REQUEST_CANCELLED'); // the reason work stops when its caller has gone: logged, never delivered
  // Answered by the HTTP parser's error handler, before any route is known.
  reachable.add('MALFORMED_REQUEST');
  reachable.add('READ_TIMEOUT');
  reachable.add('HEADERS_TOO_LARGE');
  // Answered by `godb restore` (npm run restore), which runs before the server starts.
  reachable.add('SNAPSHOT_CORRUPT');
  reachable.add('SNAPSHOT_TARGET_NOT_EMPTY');
  // The error of a restore job (GET /api/v1/jobs/{id}), never an answer: the restore runs after its 202.
  reachable.add('RESTORE_DRAIN_TIMEOUT');
  reachable.add('RESTORE_INTERRUPTED');
  for (const [code, spec] of Object.entries(errorCatalogue)) {
    assert.ok(spec.http >= 400 && spec.http < 600, code);
    assert.ok(spec.grpc.length > 0, code);
    assert.ok(spec.description.length > 0, code);
    assert.ok(reachable.has(code as ErrorCode), `${code} is not documented on any operation`);
  }
});
