import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, type TestServer } from '../../test-support/server.js';

describe('API edges', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ BODY_LIMIT_BYTES: '2048' });
  });
  after(async () => {
    await server.close();
  });
  /** POST /auth/login with a body as the client sends it, for the answers of the body parser. */
  const postLogin = (payload: string | object, contentType?: string) =>
    server.app.inject({
      method: 'POST',
      url: '/auth/login',
      headers: contentType ? { 'content-type': contentType } : {},
      payload,
    });

  test('unknown API paths answer JSON 404, never HTML', async () => {
    for (const url of ['/api/v1/nope', '/search/unknown', '/auth/whatever', '/documents/a/b/c']) {
      const res = await server.app.inject({ method: 'GET', url });
      assert.equal(res.statusCode, 404, url);
      assert.match(res.headers['content-type'] as string, /application\/json/);
      assert.equal((res.json() as { error: { code: string } }).error.code, 'ROUTE_NOT_FOUND');
    }
  });

  test('a body that is not JSON answers 400 INVALID_JSON_BODY', async () => {
    const res = await postLogin('{"email":', 'application/json');
    assert.equal(res.statusCode, 400);
    assert.equal((res.json() as { error: { code: string } }).error.code, 'INVALID_JSON_BODY');
  });

  test('a body over the limit answers 413', async () => {
    const res = await postLogin({ email: 'a@example.com', password: 'x'.repeat(4096) });
    assert.equal(res.statusCode, 413);
    const body = res.json() as { error: { code: string; message: string } };
    assert.equal(body.error.code, 'PAYLOAD_TOO_LARGE');
    assert.equal(body.error.message, 'Request body is larger than the limit of 2048 bytes');
  });

  test('a non-JSON content type answers 415', async () => {
    const res = await postLogin('<a/>', 'text/xml');
    assert.equal(res.statusCode, 415);
  });

  test('the request id is echoed and appears in error bodies', async () => {
    const res = await server.app.inject({
      method: 'GET',
      url: '/api/v1/nope',
      headers: { 'x-request-id': 'trace-123' },
    });
    assert.equal(res.headers['x-request-id'], 'trace-123');
    assert.equal((res.json() as { error: { request_id: string } }).error.request_id, 'trace-123');
  });

  test('health, readiness and Prometheus metrics', async () => {
    assert.deepEqual((await server.app.inject({ url: '/healthz' })).json(), { status: 'ok' });
    assert.equal((await server.app.inject({ url: '/readyz' })).json().status, 'ready');
    const metrics = await server.app.inject({ url: '/metrics' });
    assert.equal(metrics.statusCode, 200);
    assert.match(metrics.body, /godb_http_requests_total\{method="GET",route="\/healthz",status="200"\}/);
    assert.match(metrics.body, /godb_http_request_duration_seconds_bucket/);
  });

  test('CORS pre-flight allows the bearer header', async () => {
    const res = await server.app.inject({
      method: 'OPTIONS',
      url: '/api/v1/search/text',
      headers: {
        origin: 'http://localhost:5173',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization,content-type',
      },
    });
    assert.equal(res.statusCode, 204);
    assert.match(String(res.headers['access-control-allow-headers']), /authorization/);
  });

  test('readiness fails once the store is closed', async () => {
    const other = await startTestServer();
    await other.engine.close();
    const res = await other.app.inject({ url: '/readyz' });
    assert.equal(res.statusCode, 503);
    await other.close();
  });
});

describe('rate limit and concurrency', () => {
  test('a client gets its burst, then 429 with Retry-After', async () => {
    const server = await startTestServer({ RATE_LIMIT_RPS: '1', RATE_LIMIT_BURST: '3' });
    try {
      const statuses: number[] = [];
      let retryAfter: string | undefined;
      for (let i = 0; i < 5; i += 1) {
        const res = await server.app.inject({ method: 'GET', url: '/api/v1/openapi.json' });
        statuses.push(res.statusCode);
        if (res.statusCode === 429) {
          retryAfter = res.headers['retry-after'] as string;
          assert.equal((res.json() as { error: { code: string } }).error.code, 'RATE_LIMITED');
        }
      }
      assert.deepEqual(statuses, [200, 200, 200, 429, 429]);
      assert.equal(retryAfter, '1');
      const health = await server.app.inject({ url: '/healthz' });
      assert.equal(health.statusCode, 200, 'health checks are not rate limited');
    } finally {
      await server.close();
    }
  });

  test('beyond MAX_CONCURRENT_OPERATIONS in flight the server answers 503', async () => {
    const server = await startTestServer({ MAX_CONCURRENT_OPERATIONS: '1' });
    try {
      // Password hashing makes register slow enough that two concurrent calls overlap.
      const payload = (i: number) => ({
        email: `c${i}@example.com`,
        password: 'password-1234',
        tenant_id: crypto.randomUUID(),
      });
      const results = await Promise.all(
        [0, 1, 2].map((i) => server.app.inject({ method: 'POST', url: '/auth/register', payload: payload(i) })),
      );
      const statuses = results.map((r) => r.statusCode).sort();
      assert.ok(statuses.includes(201));
      assert.ok(statuses.includes(503), String(statuses));
      const busy = results.find((r) => r.statusCode === 503);
      assert.equal((busy?.json() as { error: { code: string } }).error.code, 'OVERLOADED');
    } finally {
      await server.close();
    }
  });
});

describe('website fallback', () => {
  test('site routes answer the app, unknown pages answer it with 404, API paths never do', async () => {
    const dist = mkdtempSync(join(tmpdir(), 'godb-web-'));
    mkdirSync(join(dist, 'assets'), { recursive: true });
    writeFileSync(join(dist, 'index.html'), '<!doctype html><title>GoDB</title><div id="root"></div>');
    writeFileSync(join(dist, 'assets', 'app-abc123.js'), 'console.log(1)');
    const withSite = await startTestServer({ WEB_DIST: dist });
    try {
      for (const url of [
        '/',
        '/documentation',
        '/documentation/api-reference',
        '/whitepaper',
        '/playground',
        '/contact',
        '/privacy-policy',
        '/terms-of-service',
      ]) {
        const res = await withSite.app.inject({ url });
        assert.equal(res.statusCode, 200, url);
        assert.match(res.body, /<div id="root">/);
      }
      const missing = await withSite.app.inject({ url: '/no-such-page' });
      assert.equal(missing.statusCode, 404);
      assert.match(missing.body, /<div id="root">/, 'the app renders its error page');
      const asset = await withSite.app.inject({ url: '/assets/app-abc123.js' });
      assert.equal(asset.statusCode, 200);
      assert.match(String(asset.headers['cache-control']), /immutable/);
      const api = await withSite.app.inject({ url: '/api/v1/unknown' });
      assert.equal(api.statusCode, 404);
      assert.match(String(api.headers['content-type']), /json/);
    } finally {
      await withSite.close();
      rmSync(dist, { recursive: true, force: true });
    }
  });
});
