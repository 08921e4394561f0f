import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { rawRequest } from '../../test-support/raw-http.js';
import { startTestServer, type TestServer } from '../../test-support/server.js';

/** Issue #22: what a review of this stop's changes found, each shown failing before its fix. */

let server: TestServer;
let admin: Awaited<ReturnType<TestServer['registerTenant']>>;

const call: TestServer['call'] = (...args) => server.call(...args);

before(async () => {
  server = await startTestServer();
  admin = await server.registerTenant();
});
after(() => server.close());

test('autocomplete never suggests a word that only an unreadable document holds, even when a readable word shares its stem', async () => {
  const attacker = await server.addUser(admin);
  assert.equal(
    (await call('POST', '/api/v1/documents', attacker.token, { content: 'how to merge a layoff' })).status,
    201,
  );
  const secret = { content: 'merging with acme, layoffs planned', visibility: 'private' };
  assert.equal((await call('POST', '/api/v1/documents', admin.token, secret)).status, 201);
  for (const prefix of ['mer', 'lay']) {
    const res = await call('POST', '/api/v1/search/autocomplete', attacker.token, { prefix, field: 'content' });
    const words = (res.body.suggestions as { text: string }[]).map((s) => s.text);
    assert.ok(!words.includes('merging') && !words.includes('layoffs'), `${prefix}: ${words.join(', ')}`);
  }
  const own = await call('POST', '/api/v1/search/autocomplete', admin.token, { prefix: 'mer', field: 'content' });
  assert.ok(
    (own.body.suggestions as { text: string }[]).some((s) => s.text === 'merging'),
    'its owner is suggested it',
  );
});

test('deleting an id outside the Basic Multilingual Plane deletes its versions too', async () => {
  const id = '😀-report';
  for (const content of ['first', 'second']) {
    assert.equal((await call('POST', '/api/v1/documents', admin.token, { id, content })).status, 201);
  }
  const version = `/api/v1/documents/${encodeURIComponent(`${id}@v1`)}`;
  assert.equal((await call('GET', version, admin.token)).status, 200);
  assert.equal((await call('DELETE', `/api/v1/documents/${encodeURIComponent(id)}`, admin.token)).status, 200);
  // Written again under the same id: the deleted versions stay deleted (SQLite counts characters, JS UTF-16 units).
  assert.equal((await call('POST', '/api/v1/documents', admin.token, { id, content: 'third' })).status, 201);
  assert.equal((await call('GET', version, admin.token)).status, 404, 'the old version went with the deletion');
});

test('an absolute-form request target goes through the same guards as its path', async () => {
  const limited = await startTestServer({ RATE_LIMIT_RPS: '1', RATE_LIMIT_BURST: '1' });
  try {
    await limited.app.listen({ port: 0, host: '127.0.0.1' });
    const port = (limited.app.server.address() as AddressInfo).port;
    const statuses: number[] = [];
    for (let i = 0; i < 3; i += 1) statuses.push((await rawRequest(port, `http://x/api/v1/jobs/j${i}`)).status);
    assert.ok(statuses.includes(429), `the bucket holds one request a second: ${statuses.join(', ')}`);
  } finally {
    await limited.close();
  }
});
