import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';

const post = (baseUrl: string, path: string, body: unknown) =>
  fetch(`${baseUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

/** Registers `email` over the API as the register form does: the admin of a new tenant of their own. */
export async function registerAccount(baseUrl: string, email: string, password: string): Promise<void> {
  const res = await post(baseUrl, '/auth/register', { email, password, tenant_id: randomUUID() });
  assert.equal(res.status, 201, await res.text());
}

/** Registers a new account and logs it in over the API; answers its bearer token. */
export async function signUp(baseUrl: string, email: string, password: string): Promise<string> {
  await registerAccount(baseUrl, email, password);
  const login = await post(baseUrl, '/auth/login', { email, password });
  const body = await login.text();
  assert.equal(login.status, 200, body);
  return (JSON.parse(body) as { token: string }).token;
}
