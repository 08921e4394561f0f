import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../../test-support/server.js';

// Issue #22: one client sustained 70 wrong-password attempts per second on one account, with no throttle.

type ErrorBody = { error?: { code: string; message: string; details?: { retry_after?: number } } };

describe('failed-login limiter (issue #22, OWASP ASVS V2.2)', () => {
  let server: TestServer;

  before(async () => {
    server = await startTestServer({ LOGIN_MAX_FAILURES: '3', LOGIN_MAX_CLIENT_FAILURES: '8', LOGIN_LOCKOUT_S: '30' });
  });
  after(async () => {
    await server.close();
  });

  async function login(email: string, password: string, client: string) {
    const res = await server.app.inject({
      method: 'POST',
      url: '/auth/login',
      payload: { email, password },
      remoteAddress: client,
    });
    return { status: res.statusCode, retryAfter: res.headers['retry-after'], body: res.json() as ErrorBody };
  }

  test('after LOGIN_MAX_FAILURES wrong passwords the account answers 429 with Retry-After, for that client only', async () => {
    const { email, password } = await server.registerTenant();
    for (let i = 0; i < 3; i += 1) assert.equal((await login(email, 'wrong-password', '198.51.100.1')).status, 401);

    const refused = await login(email, password, '198.51.100.1');
    assert.equal(refused.status, 429, 'even the right password waits: the guesser learns nothing more');
    assert.equal(refused.body.error?.code, 'LOGIN_THROTTLED');
    assert.equal(refused.retryAfter, '30');
    assert.equal(refused.body.error?.details?.retry_after, 30);
    assert.match(
      refused.body.error?.message ?? '',
      /Too many failed logins for this account from this client\. Retry after 30 s/,
    );

    // The owner, elsewhere, is not locked out by someone guessing at their account.
    assert.equal((await login(email, password, '198.51.100.2')).status, 200);
  });

  test('a successful login clears the account’s count for that client', async () => {
    const { email, password } = await server.registerTenant();
    const client = '198.51.100.3';
    for (let i = 0; i < 2; i += 1) assert.equal((await login(email, 'wrong-password', client)).status, 401);
    assert.equal((await login(email, password, client)).status, 200);
    for (let i = 0; i < 2; i += 1) assert.equal((await login(email, 'wrong-password', client)).status, 401);
    // Four failures in all, but not three since the success.
    assert.equal((await login(email, password, client)).status, 200);
  });

  test('one client spraying many accounts is throttled as a whole', async () => {
    const client = '198.51.100.4';
    for (let i = 0; i < 8; i += 1) {
      assert.equal((await login(`nobody-${i}@example.com`, 'guess', client)).status, 401);
    }
    const refused = await login('nobody-else@example.com', 'guess', client);
    assert.equal(refused.status, 429);
    assert.equal(refused.body.error?.code, 'LOGIN_THROTTLED');
    assert.match(refused.body.error?.message ?? '', /from this client/);
    assert.ok(Number(refused.retryAfter) >= 1);
    // Another client is unaffected.
    assert.equal((await login('nobody-else@example.com', 'guess', '198.51.100.5')).status, 401);
  });

  test('parallel guesses cannot outrun the count', async () => {
    const { email } = await server.registerTenant();
    const answers = await Promise.all(Array.from({ length: 10 }, () => login(email, 'wrong-password', '198.51.100.6')));
    const statuses = answers.map((a) => a.status);
    assert.equal(statuses.filter((s) => s === 401).length, 3, String(statuses));
    assert.equal(statuses.filter((s) => s === 429).length, 7, String(statuses));
  });
});
