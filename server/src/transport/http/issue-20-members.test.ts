import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { startTestServer, type TestServer } from '../../test-support/server.js';

let server: TestServer;

const call: TestServer['call'] = (...args) => server.call(...args);

before(async () => {
  server = await startTestServer();
});
after(async () => {
  await server.close();
});

test("issue #20: the login form's register call without a tenant id creates nothing, so a typo fails at login", async () => {
  const typo = `typo-${randomUUID()}@example.test`;
  const registered = await call('POST', '/auth/register', undefined, { email: typo, password: 'password-1234' });
  assert.equal(registered.status, 200, 'no error status: nothing to show in the console');
  assert.equal(registered.body.success, false);
  assert.match(registered.body.message as string, /needs a tenant_id/);
  const login = await call('POST', '/auth/login', undefined, { email: typo, password: 'password-1234' });
  assert.equal(login.status, 401);
  assert.equal(login.body.error?.message, 'Invalid email or password');
  // An existing account: the same call answers the same, and login works.
  const { email, password } = await server.registerTenant();
  const again = await call('POST', '/auth/register', undefined, { email, password });
  assert.equal(again.status, 200);
  assert.equal((await call('POST', '/auth/login', undefined, { email, password })).status, 200);
});

test('issue #20: a tenant admin adds members to their tenant; the 409 on register points there', async () => {
  const admin = await server.registerTenant();
  const email = `member-${randomUUID()}@example.com`;
  const created = await call('POST', '/auth/users', admin.token, { email, password: 'password-1234' });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  assert.equal(created.body.tenant_id, admin.tenantId);
  assert.equal(created.body.role, 'user');
  const member = await server.login(email, 'password-1234');
  const me = await call('GET', `/auth/users/${created.body.user_id as string}`, admin.token);
  assert.equal(me.status, 200);
  // A plain member cannot add members; an admin can add another admin.
  const refused = await call('POST', '/auth/users', member, {
    email: `x-${randomUUID()}@example.com`,
    password: 'password-1234',
  });
  assert.equal(refused.status, 403);
  const second = await call('POST', '/api/v1/auth/users', admin.token, {
    email: `admin2-${randomUUID()}@example.com`,
    password: 'password-1234',
    role: 'admin',
  });
  assert.equal(second.status, 201);
  assert.equal(second.body.role, 'admin');
  const superadmin = await call('POST', '/auth/users', admin.token, {
    email: `root-${randomUUID()}@example.com`,
    password: 'password-1234',
    role: 'superadmin',
  });
  assert.equal(superadmin.status, 400);
  assert.equal(superadmin.body.error?.field, 'body.role');
  const taken = await call('POST', '/auth/register', undefined, {
    email: `x-${randomUUID()}@example.com`,
    password: 'password-1234',
    tenant_id: admin.tenantId,
  });
  assert.equal(taken.status, 409);
  assert.match(taken.body.error?.message ?? '', /ask its admin to add you \(POST \/auth\/users\)/);
});
