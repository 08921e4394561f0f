import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { rawRequest, type RawAnswer } from '../../test-support/raw-http.js';
import { bearer, startTestServer, type TestServer } from '../../test-support/server.js';

// Issue #22: Fastify's own errors (a path that is not valid percent-encoding, an over-long path parameter,
// oversized headers) answered in Fastify's shape; API paths with `..` or very long names fell through to the
// static-file server and answered 500; error messages echoed bidirectional overrides and install paths.

let server: TestServer;
let admin: Awaited<ReturnType<TestServer['registerTenant']>>;
let port: number;
let webDist: string;

type Answer = RawAnswer;

const raw = (path: string, headers: Record<string, string> = {}) => rawRequest(port, path, { headers });

/** Bytes straight onto a socket, for what Node's HTTP client refuses to send. */
function rawBytes(bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(bytes));
    let answer = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (answer += chunk));
    socket.on('close', () => resolve(answer));
    socket.on('error', reject);
  });
}

function assertEnvelope(answer: Answer, status: number, code: string) {
  assert.equal(answer.status, status, answer.body);
  assert.match(answer.contentType, /^application\/json/);
  const body = JSON.parse(answer.body) as { error: Record<string, unknown> };
  assert.equal(body.error.code, code, answer.body);
  assert.equal(body.error.status, status);
  assert.equal(typeof body.error.message, 'string');
  assert.equal(typeof body.error.request_id, 'string');
  return body.error;
}

before(async () => {
  // A built website, so the static-file server is registered as in production.
  webDist = mkdtempSync(join(tmpdir(), 'godb-web-'));
  mkdirSync(join(webDist, 'assets'), { recursive: true });
  writeFileSync(join(webDist, 'index.html'), '<!doctype html><title>GoDB</title>');
  server = await startTestServer({ WEB_DIST: webDist });
  admin = await server.registerTenant();
  await server.app.listen({ port: 0, host: '127.0.0.1' });
  port = (server.app.server.address() as AddressInfo).port;
});
after(async () => {
  await server.close();
  rmSync(webDist, { recursive: true, force: true });
});

test('a path that is not valid percent-encoding answers 400 INVALID_URL in the envelope', async () => {
  const error = assertEnvelope(await raw('/api/v1/documents/%zz'), 400, 'INVALID_URL');
  assert.equal(error.field, 'path');
});

test('an over-long path parameter answers 400 naming the path, in the envelope', async () => {
  const error = assertEnvelope(await raw(`/api/v1/documents/${'a'.repeat(5000)}`), 400, 'VALIDATION_FAILED');
  assert.equal(error.field, 'path');
  const file = assertEnvelope(
    await raw(`/api/v1/downloads/godb-${'a'.repeat(300)}.tar.gz?expires=1&signature=${'s'.repeat(43)}`),
    400,
    'VALIDATION_FAILED',
  );
  assert.equal(file.field, 'params.file');
});

test('API paths never reach the static-file server, whatever they normalise to', async () => {
  for (const path of ['/api/v1/jobs/../../../etc/passwd', '/api/v1/jobs/../../index.html', '/api/../etc/passwd']) {
    const answer = await raw(path, bearer(admin.token));
    assert.ok(answer.status >= 400 && answer.status < 500, `${path}: ${answer.status} ${answer.body}`);
    assertEnvelope(answer, answer.status, 'ROUTE_NOT_FOUND');
  }
  // The site itself is still served.
  const home = await raw('/');
  assert.equal(home.status, 200);
  assert.match(home.contentType, /text\/html/);
});

test('headers larger than the parser accepts answer 431 in the envelope', async () => {
  const answer = await rawBytes(
    `GET /api/v1/documents/stats HTTP/1.1\r\nHost: x\r\nX-Big: ${'b'.repeat(20_000)}\r\n\r\n`,
  );
  const [head = '', body = ''] = answer.split('\r\n\r\n');
  assert.match(head, /^HTTP\/1\.1 431 /);
  assert.match(head, /content-type: application\/json/i);
  const error = (JSON.parse(body) as { error: { code: string; status: number; request_id: string } }).error;
  assert.equal(error.code, 'HEADERS_TOO_LARGE');
  assert.equal(error.status, 431);
  assert.ok(error.request_id.length > 0);
});

test('malformed HTTP answers 400 in the envelope', async () => {
  const answer = await rawBytes('GARBAGE\r\n\r\n');
  const [head = '', body = ''] = answer.split('\r\n\r\n');
  assert.match(head, /^HTTP\/1\.1 400 /);
  assert.equal((JSON.parse(body) as { error: { code: string } }).error.code, 'MALFORMED_REQUEST');
});

test('messages that echo input carry no control or bidirectional characters, nor the install path', async () => {
  const res = await server.app.inject({
    method: 'POST',
    url: '/api/v1/embeddings',
    headers: bearer(admin.token),
    payload: { model_name: '\u202Eevil\u0007\u2066', text: 'x' },
  });
  assert.equal(res.statusCode, 400);
  const error = (res.json() as { error: { code: string; message: string } }).error;
  assert.equal(error.code, 'MODEL_NOT_AVAILABLE');
  assert.doesNotMatch(error.message, /[\p{Cc}\u202a-\u202e\u2066-\u2069]/u);
  assert.ok(error.message.includes('\\u202Eevil'), error.message);
  assert.ok(!error.message.includes(server.dataDir), error.message);
});
