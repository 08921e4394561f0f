import { apiRequest } from '../../lib/api-client';

const errorText = (body: unknown): string | undefined =>
  typeof body === 'object' && body !== null && 'error' in body
    ? (body as { error?: { message?: string } }).error?.message
    : undefined;

/**
 * POST /auth/register: answers the server's error text when it refuses. Without `tenant_id` the server creates
 * nothing and answers `{ success: false, message }` (the login action's first step), so `success` decides too.
 */
export async function registerAccount(input: {
  email: string;
  password: string;
  tenant_id?: string;
}): Promise<{ ok: boolean; error?: string }> {
  const res = await apiRequest('POST', '/auth/register', { body: input });
  const body = res.body as { success?: boolean; message?: string } | null;
  if (res.ok && body?.success !== false) return { ok: true };
  const error = errorText(res.body) ?? (res.ok ? body?.message : undefined);
  return { ok: false, ...(error && { error }) };
}

/** POST /auth/login: the token, or the server's error text. */
export async function loginAccount(input: {
  email: string;
  password: string;
}): Promise<{ token?: string; error?: string }> {
  const res = await apiRequest('POST', '/auth/login', { body: input });
  const token = res.ok ? (res.body as { token?: string }).token : undefined;
  if (token) return { token };
  const error = errorText(res.body);
  return error ? { error } : {};
}
