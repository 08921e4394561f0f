import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { bearer, startTestServer, superAdmin, type TestServer } from '../../test-support/server.js';

// Issue #19, API keys: created once and stored hashed, listed without secrets, revoked at once; a key works
// wherever a login token does, bound to its tenant and role, and is rate limited per key.

type ErrorJson = { error?: { code: string; message: string; field?: string } };
type KeyJson = {
  id: string;
  name: string;
  role: string;
  prefix: string;
  user_id: string;
  user_email: string;
  created_at: number;
  expires_at?: number;
  last_used_at?: number;
  key?: string;
};
type Json = Record<string, unknown> & ErrorJson;

let server: TestServer;
const start = Date.UTC(2026, 0, 1);
let now = start;
const clock = { now: () => now };
const invalidKeyMessage = 'Unauthorized: this API key is unknown, expired or revoked';

async function call(
  method: string,
  url: string,
  headers: Record<string, string> = {},
  payload?: unknown,
): Promise<{ status: number; body: Json; headers: Record<string, unknown> }> {
  const res = await server.app.inject({
    method: method as 'GET',
    url,
    headers,
    ...(payload !== undefined && { payload: payload as Record<string, unknown> }),
  });
  return { status: res.statusCode, body: res.json() as Json, headers: res.headers };
}

async function createKey(token: string, body: Record<string, unknown> = { name: 'script' }): Promise<KeyJson> {
  const res = await call('POST', '/auth/api-keys', bearer(token), body);
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body as unknown as KeyJson;
}

const keyHeader = (key: string) => ({ 'api-key': key });
const listKeys = async (headers: Record<string, string>) =>
  (await call('GET', '/auth/api-keys', headers)).body as unknown as { keys: KeyJson[]; total: number };

before(async () => {
  server = await startTestServer({ JWT_TTL_S: '31536000' }, clock);
});
after(async () => {
  await server.close();
});

describe('creating a key', () => {
  test('answers the key once, in the godb_<id>_<secret> form; only a hash of the secret is stored', async () => {
    const admin = await server.registerTenant();
    const created = await createKey(admin.token, { name: 'nightly import' });
    assert.match(created.key ?? '', /^godb_[0-9a-f]{16}_[0-9a-f]{64}$/);
    assert.equal(created.prefix, `godb_${created.id}`);
    assert.ok(created.key?.startsWith(`${created.prefix}_`));
    assert.deepEqual(
      { name: created.name, role: created.role, user_id: created.user_id, user_email: created.user_email },
      { name: 'nightly import', role: 'user', user_id: admin.userId, user_email: admin.email },
    );
    assert.equal(created.created_at, Math.floor(now / 1000));
    assert.equal(created.expires_at, undefined, 'no expiry unless asked for');

    const listed = await listKeys(bearer(admin.token));
    assert.equal(listed.total, 1);
    assert.equal(listed.keys[0]?.id, created.id);
    assert.equal('key' in (listed.keys[0] ?? {}), false, 'a list never shows the secret');
    assert.equal(JSON.stringify(listed).includes(created.key!.slice(-64)), false);

    // The store holds 32 bytes of hash, not the secret.
    const row = server.engine.db.prepare('SELECT * FROM api_keys WHERE id = ?').get(created.id) as Record<
      string,
      unknown
    >;
    assert.equal((row.secret_hash as Buffer).length, 32);
    assert.equal(JSON.stringify(row).includes(created.key!.slice(-64)), false);
  });

  test('a key’s role cannot exceed its creator’s: 403 naming both roles', async () => {
    const admin = await server.registerTenant();
    const user = await server.addUser(admin);
    const refused = await call('POST', '/auth/api-keys', bearer(user.token), { name: 'x', role: 'admin' });
    assert.equal(refused.status, 403);
    assert.equal(refused.body.error?.code, 'FORBIDDEN');
    assert.equal(
      refused.body.error?.message,
      "Insufficient privileges: a key's role cannot exceed yours: you are user and asked for admin",
    );
    const adminRefused = await call('POST', '/auth/api-keys', bearer(admin.token), { name: 'x', role: 'superadmin' });
    assert.equal(adminRefused.status, 403);
    assert.equal((await createKey(admin.token, { name: 'ops', role: 'admin' })).role, 'admin');
    const root = await server.login(superAdmin.email, superAdmin.password);
    assert.equal((await createKey(root, { name: 'root ops', role: 'superadmin' })).role, 'superadmin');
  });

  test('an expiry must lie in the future; ISO dates and Unix seconds are accepted', async () => {
    const admin = await server.registerTenant();
    const past = await call('POST', '/auth/api-keys', bearer(admin.token), { name: 'x', expires_at: '2025-06-01' });
    assert.equal(past.status, 400);
    assert.equal(past.body.error?.code, 'API_KEY_EXPIRY_PAST');
    assert.equal(past.body.error?.field, 'body.expires_at');
    assert.equal(
      past.body.error?.message,
      'expires_at must be in the future: 2025-06-01T00:00:00Z is not after the current time 2026-01-01T00:00:00Z; leave it out for a key that does not expire',
    );
    const iso = await createKey(admin.token, { name: 'x', expires_at: '2027-01-01' });
    assert.equal(iso.expires_at, Date.UTC(2027, 0, 1) / 1000);
    const seconds = await createKey(admin.token, { name: 'y', expires_at: Math.floor(now / 1000) + 60 });
    assert.equal(seconds.expires_at, Math.floor(now / 1000) + 60);
  });

  test('invalid input answers 400 naming the field', async () => {
    const admin = await server.registerTenant();
    const cases: [unknown, string][] = [
      [{ name: '' }, 'body.name'],
      [{}, 'body.name'],
      [{ name: 'x', role: 'owner' }, 'body.role'],
      [{ name: 'x', expires_at: 'tomorrow' }, 'body.expires_at'],
      [{ name: 'x', scopes: ['read'] }, 'body.scopes'],
    ];
    for (const [body, field] of cases) {
      const res = await call('POST', '/auth/api-keys', bearer(admin.token), body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(res.body.error?.field, field, JSON.stringify(res.body));
    }
    const badId = await call('DELETE', '/auth/api-keys/not-a-key-id', bearer(admin.token));
    assert.equal(badId.status, 400);
    assert.equal(badId.body.error?.field, 'params.keyID');
  });

  test('a key cannot create keys, so a leaked key cannot make itself a successor', async () => {
    const admin = await server.registerTenant();
    const { key } = await createKey(admin.token, { name: 'ops', role: 'admin' });
    const res = await call('POST', '/auth/api-keys', keyHeader(key!), { name: 'successor' });
    assert.equal(res.status, 403);
    assert.equal(
      res.body.error?.message,
      'Insufficient privileges: API keys are created with a login token, not with another API key: log in to create one',
    );
  });

  test('a user holds at most 100 keys; revoking one frees its place', async () => {
    const admin = await server.registerTenant();
    let last: KeyJson | undefined;
    for (let i = 0; i < 100; i += 1) last = await createKey(admin.token, { name: `k${i}` });
    const refused = await call('POST', '/auth/api-keys', bearer(admin.token), { name: 'one more' });
    assert.equal(refused.status, 400);
    assert.equal(refused.body.error?.code, 'API_KEY_LIMIT');
    assert.equal(
      refused.body.error?.message,
      'You already hold 100 API keys, the most one user may: revoke one you no longer use first',
    );
    assert.equal((await call('DELETE', `/auth/api-keys/${last!.id}`, bearer(admin.token))).status, 200);
    await createKey(admin.token, { name: 'one more' });
  });
});

describe('using a key', () => {
  test('works wherever a login token does, as Authorization: Bearer or as an api-key header', async () => {
    const admin = await server.registerTenant();
    const { key } = await createKey(admin.token, { name: 'ops', role: 'admin' });
    for (const headers of [bearer(key!), keyHeader(key!), { authorization: `bearer ${key!}` }]) {
      const users = await call('GET', '/auth/users', headers);
      assert.equal(users.status, 200, JSON.stringify(users.body));
      assert.deepEqual(
        (users.body.users as { id: string }[]).map((u) => u.id),
        [admin.userId],
      );
    }
    const alias = await call('GET', '/api/v1/auth/api-keys', keyHeader(key!));
    assert.equal(alias.status, 200);
  });

  test('is bound to its tenant and its role', async () => {
    const admin = await server.registerTenant();
    const other = await server.registerTenant();
    const userKey = (await createKey(admin.token, { name: 'reader' })).key!;
    const adminKey = (await createKey(admin.token, { name: 'ops', role: 'admin' })).key!;
    const asUser = await call('GET', '/auth/users', keyHeader(userKey));
    assert.equal(asUser.status, 403);
    assert.equal(
      asUser.body.error?.message,
      'Insufficient privileges: this operation needs the admin role, you have user',
    );
    const otherTenant = await call('GET', `/auth/users/${other.userId}`, keyHeader(adminKey));
    assert.equal(otherTenant.status, 404, 'a user of another tenant is not found');
    const own = await call('GET', `/auth/users/${admin.userId}`, keyHeader(adminKey));
    assert.equal(own.status, 200);
  });

  test('unknown, malformed, expired and revoked keys answer the same 401', async () => {
    const admin = await server.registerTenant();
    const expiring = await createKey(admin.token, { name: 'short', expires_at: Math.floor(now / 1000) + 3600 });
    const revoked = await createKey(admin.token, { name: 'gone' });
    const kept = await createKey(admin.token, { name: 'kept' });
    assert.equal((await call('GET', '/auth/api-keys', keyHeader(expiring.key!))).status, 200);
    assert.equal((await call('DELETE', `/auth/api-keys/${revoked.id}`, bearer(admin.token))).status, 200);
    now += 3600 * 1000;
    try {
      const wrongSecret = `${kept.prefix}_${randomBytes(32).toString('hex')}`;
      const unknown = `godb_${randomBytes(8).toString('hex')}_${randomBytes(32).toString('hex')}`;
      for (const key of [unknown, wrongSecret, 'godb_short', `${kept.key!}x`, expiring.key!, revoked.key!]) {
        for (const headers of [keyHeader(key), bearer(key)]) {
          const res = await call('GET', '/auth/api-keys', headers);
          assert.equal(res.status, 401, key);
          assert.equal(res.body.error?.code, 'UNAUTHORIZED');
          assert.equal(res.body.error?.message, invalidKeyMessage, key);
        }
      }
      assert.equal((await call('GET', '/auth/api-keys', keyHeader(kept.key!))).status, 200);
    } finally {
      now = start;
    }
  });

  test('a key and a token together are refused rather than guessed at', async () => {
    const admin = await server.registerTenant();
    const { key } = await createKey(admin.token);
    const res = await call('GET', '/auth/api-keys', { ...bearer(admin.token), ...keyHeader(key!) });
    assert.equal(res.status, 401);
    assert.equal(
      res.body.error?.message,
      'Unauthorized: send one credential, an Authorization header or an api-key header',
    );
  });

  test('a deleted user’s keys stop working; a demotion lowers them to the new role', async () => {
    const admin = await server.registerTenant();
    const member = await server.addUser(admin);
    const memberKey = (await createKey(member.token)).key!;
    assert.equal((await call('GET', '/auth/api-keys', keyHeader(memberKey))).status, 200);
    assert.equal((await call('DELETE', `/auth/users/${member.userId}`, bearer(admin.token))).status, 200);
    const gone = await call('GET', '/auth/api-keys', keyHeader(memberKey));
    assert.equal(gone.status, 401);
    assert.equal(gone.body.error?.message, invalidKeyMessage);

    const second = await server.addUser(admin);
    await call('POST', '/auth/role/assign', bearer(admin.token), { user_id: second.userId, role_id: 'admin' });
    const secondToken = await server.login(second.email, 'password-1234');
    const opsKey = (await createKey(secondToken, { name: 'ops', role: 'admin' })).key!;
    assert.equal((await call('GET', '/auth/users', keyHeader(opsKey))).status, 200);
    await call('POST', '/auth/role/assign', bearer(admin.token), { user_id: second.userId, role_id: 'user' });
    assert.equal((await call('GET', '/auth/users', keyHeader(opsKey))).status, 403);
  });

  test('records its last use at most once a minute', async () => {
    const admin = await server.registerTenant();
    const created = await createKey(admin.token);
    const lastUsed = async () => (await listKeys(bearer(admin.token))).keys[0]?.last_used_at;
    assert.equal(await lastUsed(), undefined, 'never used yet');
    try {
      await call('GET', '/auth/api-keys', keyHeader(created.key!));
      const first = Math.floor(now / 1000);
      assert.equal(await lastUsed(), first);
      now += 59_000;
      await call('GET', '/auth/api-keys', keyHeader(created.key!));
      assert.equal(await lastUsed(), first, 'within the minute nothing is written');
      now += 2_000;
      await call('GET', '/auth/api-keys', keyHeader(created.key!));
      assert.equal(await lastUsed(), first + 61);
    } finally {
      now = start;
    }
  });
});

describe('listing and revoking', () => {
  test('a user lists and revokes their own keys; a tenant admin every key of the tenant', async () => {
    const admin = await server.registerTenant();
    const member = await server.addUser(admin);
    const other = await server.registerTenant();
    const adminKey = await createKey(admin.token, { name: 'admin key', expires_at: '2030-01-01' });
    const memberKey = await createKey(member.token, { name: 'member key' });
    const otherKey = await createKey(other.token, { name: 'other tenant' });

    const mine = await listKeys(bearer(member.token));
    assert.deepEqual(
      mine.keys.map((k) => k.name),
      ['member key'],
    );
    assert.equal(mine.total, 1);
    const all = await listKeys(bearer(admin.token));
    assert.deepEqual(all.keys.map((k) => k.name).sort(), ['admin key', 'member key']);
    const listedAdminKey = all.keys.find((k) => k.id === adminKey.id);
    assert.deepEqual(listedAdminKey, {
      id: adminKey.id,
      name: 'admin key',
      role: 'user',
      prefix: `godb_${adminKey.id}`,
      user_id: admin.userId,
      user_email: admin.email,
      created_at: Math.floor(now / 1000),
      expires_at: Date.UTC(2030, 0, 1) / 1000,
    });
    const page = await call('GET', '/auth/api-keys?offset=1&limit=1', bearer(admin.token));
    assert.equal((page.body.keys as KeyJson[]).length, 1);
    assert.equal(page.body.total, 2);

    // A member cannot revoke someone else's key: it is not found, as a key of another tenant is for anyone.
    const notTheirs = await call('DELETE', `/auth/api-keys/${adminKey.id}`, bearer(member.token));
    assert.equal(notTheirs.status, 404);
    assert.equal(notTheirs.body.error?.message, `API key ${adminKey.id} not found`);
    assert.equal((await call('DELETE', `/auth/api-keys/${otherKey.id}`, bearer(admin.token))).status, 404);
    assert.equal((await call('GET', '/auth/api-keys', keyHeader(otherKey.key!))).status, 200);

    // The admin revokes the member's key; it fails at its next request.
    const revoked = await call('DELETE', `/auth/api-keys/${memberKey.id}`, bearer(admin.token));
    assert.deepEqual(revoked.body, { success: true, message: 'API key revoked' });
    assert.equal((await call('GET', '/auth/api-keys', keyHeader(memberKey.key!))).status, 401);
    assert.equal((await call('DELETE', `/auth/api-keys/${memberKey.id}`, bearer(admin.token))).status, 404);
    // A member revokes their own key, with the key itself if they like.
    const own = await createKey(member.token, { name: 'own' });
    assert.equal((await call('DELETE', `/auth/api-keys/${own.id}`, keyHeader(own.key!))).status, 200);
    assert.equal((await call('GET', '/auth/api-keys', keyHeader(own.key!))).status, 401);
  });

  test('an admin’s key with the user role manages only its owner’s keys', async () => {
    const admin = await server.registerTenant();
    const member = await server.addUser(admin);
    await createKey(member.token, { name: 'member key' });
    const narrow = await createKey(admin.token, { name: 'narrow' });
    const listed = await listKeys(keyHeader(narrow.key!));
    assert.deepEqual(
      listed.keys.map((k) => k.name),
      ['narrow'],
    );
  });

  test('the key routes need a credential', async () => {
    for (const [method, url] of [
      ['GET', '/auth/api-keys'],
      ['POST', '/auth/api-keys'],
      ['DELETE', `/auth/api-keys/${randomBytes(8).toString('hex')}`],
    ] as const) {
      const res = await call(method, url);
      assert.equal(res.status, 401, url);
      assert.equal(res.body.error?.message, 'Unauthorized: missing bearer token');
    }
  });
});

describe('rate limits', () => {
  test('a key has its own bucket, wherever its requests come from; invalid keys count against the address', async () => {
    const limited = await startTestServer({ RATE_LIMIT_RPS: '1', RATE_LIMIT_BURST: '3' }, { now: () => start });
    try {
      // Each set-up step from its own address, so no address bucket runs dry before the test begins.
      let address = 0;
      const from = async (
        ip: string,
        method: string,
        url: string,
        headers: Record<string, string>,
        payload?: object,
      ) => {
        const res = await limited.app.inject({
          method: method as 'GET',
          url,
          headers,
          remoteAddress: ip,
          ...(payload && { payload }),
        });
        return { status: res.statusCode, body: res.json() as Json, headers: res.headers };
      };
      const next = () => `10.0.0.${(address += 1)}`;
      const tenantId = randomUUID();
      const email = `rate-${randomUUID()}@example.com`;
      await from(next(), 'POST', '/auth/register', {}, { email, password: 'password-1234', tenant_id: tenantId });
      const login = await from(next(), 'POST', '/auth/login', {}, { email, password: 'password-1234' });
      const token = login.body.token as string;
      const keyA = (await from(next(), 'POST', '/auth/api-keys', bearer(token), { name: 'a' })).body.key as string;
      const keyB = (await from(next(), 'POST', '/auth/api-keys', bearer(token), { name: 'b' })).body.key as string;

      const statuses: number[] = [];
      for (const ip of ['192.0.2.1', '192.0.2.2', '192.0.2.3', '192.0.2.4']) {
        const res = await from(ip, 'GET', '/auth/api-keys', keyHeader(keyA));
        statuses.push(res.status);
        if (res.status === 429) {
          assert.equal(res.body.error?.code, 'RATE_LIMITED');
          assert.equal(res.headers['retry-after'], '1');
        }
      }
      assert.deepEqual(statuses, [200, 200, 200, 429], 'one key, four addresses: the key’s burst of 3');
      assert.equal((await from('192.0.2.1', 'GET', '/auth/api-keys', keyHeader(keyB))).status, 200, 'key B');
      assert.equal((await from('192.0.2.1', 'GET', '/auth/api-keys', bearer(token))).status, 200, 'the address');

      const invalid = `godb_${randomBytes(8).toString('hex')}_${randomBytes(32).toString('hex')}`;
      const wrong: number[] = [];
      for (let i = 0; i < 4; i += 1)
        wrong.push((await from('198.51.100.7', 'GET', '/auth/api-keys', keyHeader(invalid))).status);
      assert.deepEqual(wrong, [401, 401, 401, 429], 'an invalid key is limited by its address');
    } finally {
      await limited.close();
    }
  });
});
