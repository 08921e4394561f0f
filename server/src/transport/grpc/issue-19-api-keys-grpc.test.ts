import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { status, type ServiceError } from '@grpc/grpc-js';
import { grpcCall as call, grpcClient, startGrpcTestServer, type GrpcClient } from '../../test-support/grpc.js';
import { bearer, type TestServer } from '../../test-support/server.js';

// Issue #19: an API key works over gRPC as over REST (`authorization: Bearer <key>` or `api-key` metadata),
// bound to its tenant and role, refused once expired, revoked or its user deleted, and limited per key with one
// budget shared with REST.

let server: TestServer;
let search: GrpcClient;
let adminClient: GrpcClient;
const start = Date.UTC(2026, 0, 1);
let now = start;
const invalidKeyMessage = 'Unauthorized: this API key is unknown, expired or revoked';

async function createKey(token: string, body: Record<string, unknown>): Promise<{ id: string; key: string }> {
  const res = await server.app.inject({ method: 'POST', url: '/auth/api-keys', headers: bearer(token), payload: body });
  assert.equal(res.statusCode, 201, res.body);
  return res.json() as { id: string; key: string };
}

const refusedWith = (code: number, message?: string) => (e: ServiceError) =>
  e.code === code && (message === undefined || e.details === message);

before(async () => {
  server = await startGrpcTestServer({ JWT_TTL_S: '31536000' }, { now: () => now });
  search = grpcClient(server, 'SearchService');
  adminClient = grpcClient(server, 'AdminService');
});
after(async () => {
  search?.close();
  adminClient?.close();
  await server.close();
});

test('a key authenticates gRPC calls as authorization: Bearer or as api-key metadata, in its tenant and role', async () => {
  const admin = await server.registerTenant();
  const other = await server.registerTenant();
  const adminKey = (await createKey(admin.token, { name: 'ops', role: 'admin' })).key;
  const userKey = (await createKey(admin.token, { name: 'reader' })).key;
  const both: Record<string, string>[] = [{ authorization: `Bearer ${adminKey}` }, { 'api-key': adminKey }];
  for (const metadata of both) {
    const user = await call<{ id: string }>(adminClient, 'GetUser', { user_id: admin.userId }, metadata);
    assert.equal(user.id, admin.userId);
    const found = await call<{ results: unknown[] }>(search, 'TextSearch', { query: 'anything' }, metadata);
    assert.deepEqual(found.results ?? [], []);
  }
  await assert.rejects(
    call(adminClient, 'GetUser', { user_id: other.userId }, { 'api-key': adminKey }),
    refusedWith(status.NOT_FOUND),
    'a user of another tenant is not found',
  );
  await assert.rejects(
    call(adminClient, 'GetUser', { user_id: admin.userId }, { 'api-key': userKey }),
    refusedWith(status.PERMISSION_DENIED),
    'a user key cannot call an admin method',
  );
});

test('expired, revoked and deleted users’ keys answer UNAUTHENTICATED with one message', async () => {
  const admin = await server.registerTenant();
  const member = await server.addUser(admin);
  const expiring = await createKey(admin.token, { name: 'short', expires_at: Math.floor(now / 1000) + 60 });
  const revoked = await createKey(admin.token, { name: 'gone' });
  const members = await createKey(member.token, { name: 'member' });
  const query = { query: 'anything' };
  for (const key of [expiring, revoked, members]) await call(search, 'TextSearch', query, { 'api-key': key.key });

  const revoke = await server.app.inject({
    method: 'DELETE',
    url: `/auth/api-keys/${revoked.id}`,
    headers: bearer(admin.token),
  });
  assert.equal(revoke.statusCode, 200);
  const removal = await server.app.inject({
    method: 'DELETE',
    url: `/auth/users/${member.userId}`,
    headers: bearer(admin.token),
  });
  assert.equal(removal.statusCode, 200);
  now += 61_000;
  try {
    for (const key of [expiring, revoked, members]) {
      await assert.rejects(
        call(search, 'TextSearch', query, { authorization: `Bearer ${key.key}` }),
        refusedWith(status.UNAUTHENTICATED, invalidKeyMessage),
      );
    }
  } finally {
    now = start;
  }
});

test('a key’s budget is one over REST and gRPC: RESOURCE_EXHAUSTED once it is spent', async () => {
  // A burst of 5 and a clock held still: the test counts requests, not time. Set-up requests come from their own
  // addresses, so no address bucket runs dry first.
  const limited = await startGrpcTestServer({ RATE_LIMIT_RPS: '1', RATE_LIMIT_BURST: '5' }, { now: () => start });
  const client = grpcClient(limited, 'SearchService');
  try {
    let address = 0;
    const inject = async (method: 'GET' | 'POST', url: string, headers: Record<string, string>, payload?: object) =>
      limited.app.inject({
        method,
        url,
        headers,
        remoteAddress: `10.0.1.${(address += 1)}`,
        ...(payload && { payload }),
      });
    const email = `grpc-rate-${randomUUID()}@example.com`;
    await inject('POST', '/auth/register', {}, { email, password: 'password-1234', tenant_id: randomUUID() });
    const token = (await inject('POST', '/auth/login', {}, { email, password: 'password-1234' })).json()
      .token as string;
    const newKey = async (name: string) =>
      (await inject('POST', '/auth/api-keys', bearer(token), { name })).json().key as string;
    const key = await newKey('busy');

    for (let i = 0; i < 3; i += 1) {
      assert.equal((await inject('GET', '/auth/api-keys', { 'api-key': key })).statusCode, 200);
    }
    await call(client, 'TextSearch', { query: 'x' }, { 'api-key': key });
    await call(client, 'TextSearch', { query: 'x' }, { 'api-key': key });
    await assert.rejects(
      call(client, 'TextSearch', { query: 'x' }, { 'api-key': key }),
      (e: ServiceError) =>
        e.code === status.RESOURCE_EXHAUSTED && e.metadata.get('godb-error-code')[0] === 'RATE_LIMITED',
    );
    assert.equal((await inject('GET', '/auth/api-keys', { 'api-key': key })).statusCode, 429);
    // Another key of the same user has its own budget.
    await call(client, 'TextSearch', { query: 'x' }, { 'api-key': await newKey('fresh') });
  } finally {
    client.close();
    await limited.close();
  }
});
