import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot, startServerProcess } from './support/server-process.js';

test('the real server on a real port: register → login → an admin route works with the token, fails without', async () => {
  const server = await startServerProcess();
  try {
    const post = (path: string, body: unknown, token?: string) =>
      fetch(`${server.baseUrl}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(token && { authorization: `Bearer ${token}` }) },
        body: JSON.stringify(body),
      });
    const credentials = { email: `smoke-${randomUUID()}@example.com`, password: 'password-1234' };
    const registered = await post('/auth/register', { ...credentials, tenant_id: randomUUID() });
    assert.equal(registered.status, 201);
    const login = await post('/auth/login', credentials);
    assert.equal(login.status, 200);
    const { token } = (await login.json()) as { token: string };

    const withToken = await fetch(`${server.baseUrl}/auth/users`, { headers: { authorization: `Bearer ${token}` } });
    assert.equal(withToken.status, 200);
    assert.equal(((await withToken.json()) as { total: number }).total, 1);
    const without = await fetch(`${server.baseUrl}/auth/users`);
    assert.equal(without.status, 401);

    const openapi = await fetch(`${server.baseUrl}/api/v1/openapi.json`);
    assert.equal(openapi.status, 200);
    const home = await fetch(`${server.baseUrl}/`);
    assert.match(await home.text(), /<div id="root">/);
  } finally {
    assert.equal(await server.stop('SIGTERM'), 0, 'SIGTERM shuts down gracefully with exit code 0');
  }
});

test('data survives a restart, and the generated JWT secret keeps tokens valid', async () => {
  const first = await startServerProcess();
  const dataDir = first.dataDir;
  const credentials = { email: `restart-${randomUUID()}@example.com`, password: 'password-1234' };
  await fetch(`${first.baseUrl}/auth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ ...credentials, tenant_id: randomUUID() }),
  });
  const login = await fetch(`${first.baseUrl}/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(credentials),
  });
  const { token } = (await login.json()) as { token: string };
  first.process.kill('SIGKILL');
  await new Promise((r) => first.process.once('exit', r));

  const second = await startServerProcess({}, dataDir);
  try {
    const res = await fetch(`${second.baseUrl}/auth/users`, { headers: { authorization: `Bearer ${token}` } });
    assert.equal(res.status, 200, 'the user registered before kill -9 is still there, and the token still verifies');
  } finally {
    await second.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('invalid configuration stops start-up with a message naming the variable', () => {
  const result = spawnSync(process.execPath, [join(repoRoot, 'server', 'dist', 'main.js')], {
    env: { ...process.env, PORT: 'eighty' },
    encoding: 'utf8',
  });
  assert.equal(result.status, 2);
  assert.match(result.stderr, /Invalid configuration: PORT="eighty" must be an integer/);
});
