import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import { bearer, startTestServer, superAdmin, type HttpMethod, type TestServer } from '../../test-support/server.js';

type Json = Record<string, unknown> & { error?: { code: string; message: string; field?: string } };

let server: TestServer;
let now = Date.UTC(2026, 0, 1);
const clock = { now: () => now };

const call: TestServer['call'] = (...args) => server.call(...args);

before(async () => {
  server = await startTestServer({ JWT_TTL_S: '3600' }, clock);
});
after(async () => {
  await server.close();
});

describe('register', () => {
  test('creates the tenant and its admin', async () => {
    const tenantId = randomUUID();
    const res = await call('POST', '/auth/register', undefined, {
      email: 'ada@example.com',
      password: 'password-1234',
      tenant_id: tenantId,
    });
    assert.equal(res.status, 201);
    assert.equal(res.body.success, true);
    assert.equal(res.body.role, 'admin');
    assert.equal(res.body.tenant_id, tenantId);
    assert.match(res.body.user_id as string, /^[0-9a-f-]{36}$/);
  });

  test('the /api/v1 alias serves the same operation', async () => {
    const res = await call('POST', '/api/v1/auth/register', undefined, {
      email: `alias-${randomUUID()}@example.com`,
      password: 'password-1234',
      tenant_id: randomUUID(),
    });
    assert.equal(res.status, 201);
  });

  test('an existing e-mail answers 409 EMAIL_EXISTS, case-insensitively', async () => {
    const res = await call('POST', '/auth/register', undefined, {
      email: 'ADA@example.com',
      password: 'password-1234',
      tenant_id: randomUUID(),
    });
    assert.equal(res.status, 409);
    assert.equal(res.body.error?.code, 'EMAIL_EXISTS');
  });

  test('an existing tenant answers 409 TENANT_EXISTS', async () => {
    const { tenantId } = await server.registerTenant();
    const res = await call('POST', '/auth/register', undefined, {
      email: `x-${randomUUID()}@example.com`,
      password: 'password-1234',
      tenant_id: tenantId,
    });
    assert.equal(res.status, 409);
    assert.equal(res.body.error?.code, 'TENANT_EXISTS');
    assert.match(res.body.error?.message ?? '', /already exists/);
  });

  test('invalid input answers 400 naming the field', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ email: 'not-an-email', password: 'password-1234', tenant_id: randomUUID() }, 'body.email'],
      [{ email: 'b@example.com', password: 'short', tenant_id: randomUUID() }, 'body.password'],
      [{ email: 'b@example.com', password: 'password-1234', tenant_id: 'tenant-1' }, 'body.tenant_id'],
      [{ email: 'b@example.com', password: 'password-1234', tenant_id: randomUUID(), name: 'x' }, 'body.name'],
    ];
    for (const [payload, field] of cases) {
      const res = await call('POST', '/auth/register', undefined, payload);
      assert.equal(res.status, 400, JSON.stringify(payload));
      assert.equal(res.body.error?.code, 'VALIDATION_FAILED');
      assert.equal(res.body.error?.field, field);
      assert.ok(res.body.error?.message.startsWith(field), res.body.error?.message);
    }
  });
});

describe('login and tokens', () => {
  test('answers a bearer token that works on protected routes', async () => {
    const { email, password, userId, tenantId } = await server.registerTenant();
    const res = await call('POST', '/auth/login', undefined, { email, password });
    assert.equal(res.status, 200);
    assert.equal(res.body.token_type, 'Bearer');
    assert.equal((res.body.user as { id: string }).id, userId);
    const me = await call('GET', `/auth/users/${userId}`, res.body.token as string);
    assert.equal(me.status, 200);
    assert.equal((me.body.user as { tenant_id: string }).tenant_id, tenantId);
  });

  test('tenant_id is optional and must match when given', async () => {
    const { email, password, tenantId } = await server.registerTenant();
    assert.equal((await call('POST', '/auth/login', undefined, { email, password, tenant_id: tenantId })).status, 200);
    const wrong = await call('POST', '/auth/login', undefined, { email, password, tenant_id: randomUUID() });
    assert.equal(wrong.status, 401);
  });

  test('wrong password and unknown e-mail answer the same 401', async () => {
    const { email } = await server.registerTenant();
    const wrong = await call('POST', '/auth/login', undefined, { email, password: 'not-the-password' });
    const unknown = await call('POST', '/auth/login', undefined, {
      email: 'nobody@example.com',
      password: 'whatever-123',
    });
    for (const res of [wrong, unknown]) {
      assert.equal(res.status, 401);
      assert.equal(res.body.error?.code, 'INVALID_CREDENTIALS');
      assert.equal(res.body.error?.message, 'Invalid email or password');
    }
  });

  test('missing, malformed, forged, alg:none and expired tokens answer 401 Unauthorized', async () => {
    const { token, userId, tenantId } = await server.registerTenant();
    const url = `/auth/users/${userId}`;
    const forged = await new SignJWT({ tid: tenantId, role: 'superadmin', groups: [] })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(userId)
      .setIssuer('godb')
      .setExpirationTime('1h')
      .sign(new TextEncoder().encode('an attacker secret that is long enough!!'));
    const [header, payload] = token.split('.');
    const noneHeader = Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url');
    const unsigned = `${noneHeader}.${payload}.`;
    assert.ok(header);
    for (const headers of [
      {},
      { authorization: 'Basic abc' },
      { authorization: 'Bearer not.a.jwt' },
      bearer(forged),
      bearer(unsigned),
    ]) {
      const res = await server.app.inject({ method: 'GET', url, headers });
      assert.equal(res.statusCode, 401, JSON.stringify(headers));
      assert.match((res.json() as Json).error?.message ?? '', /^Unauthorized: /);
    }
    now += 3601 * 1000;
    const expired = await call('GET', url, token);
    assert.equal(expired.status, 401);
    assert.equal(expired.body.error?.message, 'Unauthorized: token expired, log in again');
  });

  test('authentication comes before validation: anonymous callers learn nothing about payloads', async () => {
    const res = await call('POST', '/auth/groups', undefined, { nonsense: true });
    assert.equal(res.status, 401);
  });
});

describe('permission matrix', () => {
  test('each role reaches exactly the routes api-spec §6 gives it', async () => {
    const admin = await server.registerTenant();
    const user = await server.addUser(admin);
    const root = await server.login(superAdmin.email, superAdmin.password);
    const group = await call('POST', '/auth/groups', admin.token, { name: `g-${randomUUID()}`, description: 'matrix' });
    assert.equal(group.status, 201);
    const groupId = group.body.group_id as string;
    const permission = await call('POST', '/auth/permissions', root, {
      resource: `r-${randomUUID()}`,
      action: 'read',
      description: '',
    });
    assert.equal(permission.status, 201);

    const adminRoutes: [HttpMethod, string, unknown?][] = [
      ['POST', '/auth/role/assign', { user_id: user.userId, role_id: 'user' }],
      ['POST', '/auth/groups', { name: `g-${randomUUID()}`, description: '' }],
      ['POST', `/auth/groups/${groupId}/users`, { user_id: user.userId }],
      ['POST', `/auth/groups/${groupId}/permissions`, { permission_id: permission.body.permission_id }],
      ['GET', `/auth/users/${user.userId}`],
      ['GET', '/auth/users'],
      ['PUT', `/auth/users/${user.userId}`, { email: user.email }],
      ['DELETE', `/auth/groups/${groupId}/users/${user.userId}`],
    ];
    for (const [method, url, payload] of adminRoutes) {
      assert.equal((await call(method, url, undefined, payload)).status, 401, `anonymous ${method} ${url}`);
      const asUser = await call(method, url, user.token, payload);
      assert.equal(asUser.status, 403, `user ${method} ${url}`);
      assert.equal(asUser.body.error?.code, 'FORBIDDEN');
      assert.match(asUser.body.error?.message ?? '', /^Insufficient privileges: this operation needs the admin role/);
      const asAdmin = await call(method, url, admin.token, payload);
      assert.ok(
        asAdmin.status === 200 || asAdmin.status === 201,
        `admin ${method} ${url}: ${JSON.stringify(asAdmin.body)}`,
      );
    }

    const superRoutes: [HttpMethod, string, () => unknown][] = [
      ['POST', '/auth/permissions', () => ({ resource: `r-${randomUUID()}`, action: 'write', description: '' })],
      [
        'POST',
        '/auth/admin/users',
        () => ({ email: `a-${randomUUID()}@example.com`, password: 'password-1234', tenant_id: randomUUID() }),
      ],
    ];
    for (const [method, url, payload] of superRoutes) {
      assert.equal((await call(method, url, undefined, payload())).status, 401);
      assert.equal((await call(method, url, user.token, payload())).status, 403, `user ${url}`);
      const asAdmin = await call(method, url, admin.token, payload());
      assert.equal(asAdmin.status, 403, `admin ${url}`);
      assert.match(asAdmin.body.error?.message ?? '', /needs the superadmin role/);
      assert.equal((await call(method, url, root, payload())).status, 201, `superadmin ${url}`);
    }

    // Delete last, on a user made for it.
    const victim = await server.addUser(admin);
    assert.equal((await call('DELETE', `/auth/users/${victim.userId}`, user.token)).status, 403);
    assert.equal((await call('DELETE', `/auth/users/${victim.userId}`)).status, 401);
    assert.equal((await call('DELETE', `/auth/users/${victim.userId}`, admin.token)).status, 200);
  });
});

describe('roles', () => {
  test('an admin promotes a user; only the super admin grants superadmin; the last admin stays', async () => {
    const admin = await server.registerTenant();
    const user = await server.addUser(admin);
    const up = await call('POST', '/auth/role/assign', admin.token, { user_id: user.userId, role_id: 'admin' });
    assert.equal(up.status, 200);
    assert.equal(up.body.message, `Role admin assigned to user ${user.userId}`);
    const escalate = await call('POST', '/auth/role/assign', admin.token, {
      user_id: user.userId,
      role_id: 'superadmin',
    });
    assert.equal(escalate.status, 403);
    const invalid = await call('POST', '/auth/role/assign', admin.token, { user_id: user.userId, role_id: 'king' });
    assert.equal(invalid.status, 400);
    assert.equal(invalid.body.error?.code, 'INVALID_ROLE');
    assert.equal(invalid.body.error?.message, 'Invalid role "king". Must be one of: user, admin, superadmin');
    // Two admins now: one can step down, then the other cannot.
    assert.equal(
      (await call('POST', '/auth/role/assign', admin.token, { user_id: user.userId, role_id: 'user' })).status,
      200,
    );
    const last = await call('POST', '/auth/role/assign', admin.token, { user_id: admin.userId, role_id: 'user' });
    assert.equal(last.status, 400);
    assert.equal(last.body.error?.code, 'LAST_ADMIN');
    const del = await call('DELETE', `/auth/users/${admin.userId}`, admin.token);
    assert.equal(del.status, 400);
    assert.equal(del.body.error?.code, 'LAST_ADMIN');
  });

  test('a demotion takes effect at once, even with an older token', async () => {
    const admin = await server.registerTenant();
    const other = await server.addUser(admin);
    await call('POST', '/auth/role/assign', admin.token, { user_id: other.userId, role_id: 'admin' });
    const otherToken = await server.login(other.email, 'password-1234');
    assert.equal((await call('GET', '/auth/users', otherToken)).status, 200);
    await call('POST', '/auth/role/assign', admin.token, { user_id: other.userId, role_id: 'user' });
    assert.equal((await call('GET', '/auth/users', otherToken)).status, 403);
  });
});

describe('groups and permissions', () => {
  test('create, duplicate, membership, permissions', async () => {
    const admin = await server.registerTenant();
    const user = await server.addUser(admin);
    const root = await server.login(superAdmin.email, superAdmin.password);
    const created = await call('POST', '/auth/groups', admin.token, {
      tenant_id: admin.tenantId,
      name: 'research',
      description: 'Research team',
    });
    assert.equal(created.status, 201);
    assert.equal(created.body.message, 'Group research created');
    const groupId = created.body.group_id as string;
    const dup = await call('POST', '/auth/groups', admin.token, { name: 'research', description: '' });
    assert.equal(dup.status, 409);
    assert.equal(dup.body.error?.code, 'GROUP_EXISTS');
    const foreign = await call('POST', '/auth/groups', admin.token, {
      tenant_id: randomUUID(),
      name: 'x',
      description: '',
    });
    assert.equal(foreign.status, 404);

    assert.equal(
      (await call('POST', `/auth/groups/${groupId}/users`, admin.token, { user_id: user.userId })).status,
      200,
    );
    const read = await call('GET', `/auth/users/${user.userId}`, admin.token);
    assert.deepEqual((read.body.user as { groups: string[] }).groups, [groupId]);
    assert.equal((await call('DELETE', `/auth/groups/${groupId}/users/${user.userId}`, admin.token)).status, 200);
    const again = await call('DELETE', `/auth/groups/${groupId}/users/${user.userId}`, admin.token);
    assert.equal(again.status, 404);

    const permission = await call('POST', '/auth/permissions', root, {
      resource: 'documents',
      action: 'export',
      description: 'Export',
    });
    assert.equal(permission.status, 201);
    const dupPermission = await call('POST', '/auth/permissions', root, {
      resource: 'documents',
      action: 'export',
      description: '',
    });
    assert.equal(dupPermission.status, 409);
    const grant = await call('POST', `/auth/groups/${groupId}/permissions`, admin.token, {
      permission_id: permission.body.permission_id,
    });
    assert.equal(grant.status, 200);
    const unknown = await call('POST', `/auth/groups/${groupId}/permissions`, admin.token, {
      permission_id: randomUUID(),
    });
    assert.equal(unknown.status, 404);
    assert.equal(unknown.body.error?.code, 'NOT_FOUND');
  });
});

describe('users', () => {
  test('list pages with offset and limit (defaults 0 and 50), update, delete', async () => {
    const admin = await server.registerTenant();
    for (let i = 0; i < 3; i += 1) await server.addUser(admin);
    const all = await call('GET', '/auth/users', admin.token);
    assert.equal(all.status, 200);
    assert.equal(all.body.total, 4);
    assert.equal((all.body.users as unknown[]).length, 4);
    const page = await call('GET', '/auth/users?offset=1&limit=2', admin.token);
    assert.equal((page.body.users as unknown[]).length, 2);
    assert.equal(page.body.total, 4);
    const badLimit = await call('GET', '/auth/users?limit=0', admin.token);
    assert.equal(badLimit.status, 400);
    assert.equal(badLimit.body.error?.field, 'query.limit');

    const target = (all.body.users as { id: string; role: string }[]).find((u) => u.role === 'user');
    assert.ok(target);
    const newEmail = `renamed-${randomUUID()}@example.com`;
    const updated = await call('PUT', `/auth/users/${target.id}`, admin.token, { email: newEmail, role: 'admin' });
    assert.equal(updated.status, 200);
    assert.equal((updated.body.user as { email: string }).email, newEmail);
    assert.equal((updated.body.user as { role: string }).role, 'admin');
    const clash = await call('PUT', `/auth/users/${target.id}`, admin.token, { email: admin.email });
    assert.equal(clash.status, 409);
    const unknownGroup = await call('PUT', `/auth/users/${target.id}`, admin.token, { groups: [randomUUID()] });
    assert.equal(unknownGroup.status, 404);

    const oldToken = await server.login(newEmail, 'password-1234');
    assert.equal((await call('DELETE', `/auth/users/${target.id}`, admin.token)).status, 200);
    assert.equal((await call('GET', `/auth/users/${target.id}`, admin.token)).status, 404);
    const ghost = await call('GET', '/auth/users', oldToken);
    assert.equal(ghost.status, 401, 'a deleted user’s token stops working');
  });
});

describe('tenant isolation', () => {
  test('nothing of tenant A is visible to or changeable by tenant B: 404, not 403', async () => {
    const a = await server.registerTenant();
    const b = await server.registerTenant();
    const aUser = await server.addUser(a);
    const aGroup = await call('POST', '/auth/groups', a.token, { name: 'a-team', description: '' });
    const groupId = aGroup.body.group_id as string;
    const bGroup = await call('POST', '/auth/groups', b.token, {
      name: 'a-team',
      description: 'same name, other tenant',
    });
    assert.equal(bGroup.status, 201, 'group names are unique per tenant only');

    const attempts: [HttpMethod, string, unknown?][] = [
      ['GET', `/auth/users/${aUser.userId}`],
      ['PUT', `/auth/users/${aUser.userId}`, { role: 'admin' }],
      ['DELETE', `/auth/users/${aUser.userId}`],
      ['POST', '/auth/role/assign', { user_id: aUser.userId, role_id: 'admin' }],
      ['POST', `/auth/groups/${groupId}/users`, { user_id: b.userId }],
      ['POST', `/auth/groups/${bGroup.body.group_id as string}/users`, { user_id: aUser.userId }],
      ['DELETE', `/auth/groups/${groupId}/users/${aUser.userId}`],
    ];
    for (const [method, url, payload] of attempts) {
      const res = await call(method, url, b.token, payload);
      assert.equal(res.status, 404, `${method} ${url}: ${JSON.stringify(res.body)}`);
    }
    const list = await call('GET', '/auth/users', b.token);
    assert.deepEqual(
      (list.body.users as { id: string }[]).map((u) => u.id),
      [b.userId],
    );
    // And A's objects are intact.
    assert.equal(
      ((await call('GET', `/auth/users/${aUser.userId}`, a.token)).body.user as { role: string }).role,
      'user',
    );
  });
});

describe('super admin', () => {
  test('creates an admin in a new tenant, who can log in and manage it', async () => {
    const root = await server.login(superAdmin.email, superAdmin.password);
    const tenantId = randomUUID();
    const email = `boss-${randomUUID()}@example.com`;
    const res = await call('POST', '/auth/admin/users', root, {
      email,
      password: 'password-1234',
      tenant_id: tenantId,
    });
    assert.equal(res.status, 201);
    assert.equal(res.body.role, 'admin');
    const token = await server.login(email, 'password-1234');
    const list = await call('GET', '/auth/users', token);
    assert.equal(list.body.total, 1);
  });
});
