import { createError } from '@godb/contract';
import type { Principal } from '../context.js';
import { authenticateApiKey, isApiKeyText, verifyApiKey, type ApiKeyDeps } from './api-keys.js';
import type { AuthDeps } from './deps.js';

/** What a caller presents: an `Authorization` header (a login token or an API key) or an `api-key` header. */
export interface Credentials {
  readonly authorization?: string | undefined;
  readonly apiKey?: string | undefined;
}

/**
 * The one credential of a call: a bearer token (login token or API key) or an API key header. Both at once is
 * refused rather than guessed at: they could name different users.
 */
function credentialOf(credentials: Credentials): { kind: 'token' | 'key'; text: string } {
  const { authorization, apiKey } = credentials;
  if (apiKey !== undefined && authorization !== undefined) {
    throw createError('UNAUTHORIZED', { reason: 'send one credential, an Authorization header or an api-key header' });
  }
  if (apiKey !== undefined) return { kind: 'key', text: apiKey.trim() };
  if (!authorization) throw createError('UNAUTHORIZED', { reason: 'missing bearer token' });
  const match = /^Bearer\s+(\S+)$/i.exec(authorization.trim());
  if (!match?.[1]) throw createError('UNAUTHORIZED', { reason: 'the Authorization header must be "Bearer <token>"' });
  return { kind: isApiKeyText(match[1]) ? 'key' : 'token', text: match[1] };
}

/**
 * Turns a call's credentials into a principal. A login token must verify, and its user must still exist in the
 * token's tenant; role and groups are read from the directory so a demotion or deletion takes effect at once. An
 * API key must be known, unexpired and unrevoked, read from the store on every call (see api-keys.ts).
 */
export async function authenticate(deps: AuthDeps & ApiKeyDeps, credentials: Credentials): Promise<Principal> {
  const credential = credentialOf(credentials);
  if (credential.kind === 'key') return authenticateApiKey(deps, credential.text);
  const claims = await deps.tokens.verify(credential.text);
  const user = deps.directory.getUser(claims.tenantId, claims.userId);
  if (!user) throw createError('UNAUTHORIZED', { reason: 'the user of this token no longer exists' });
  return { userId: user.id, tenantId: user.tenant_id, email: user.email, role: user.role, groups: user.groups };
}

/**
 * The id of the valid API key a call presents, or null (no key, two credentials, or a key that does not verify):
 * such calls are rate limited per key rather than per client address. Records nothing and never throws.
 */
export function apiKeyIdOf(deps: ApiKeyDeps, credentials: Credentials): string | null {
  const { authorization, apiKey } = credentials;
  if (apiKey !== undefined && authorization !== undefined) return null;
  // Cheap checks first: this runs for every API request, most of which carry a login token or nothing.
  const text = apiKey?.trim() ?? /^Bearer\s+(\S+)$/i.exec(authorization?.trim() ?? '')?.[1];
  if (text === undefined || !isApiKeyText(text)) return null;
  try {
    return verifyApiKey(deps, text).key.id;
  } catch {
    return null;
  }
}
