import { createError } from '@godb/contract';
import type { Principal } from '../context.js';
import type { AuthDeps } from './deps.js';

/**
 * Turns an `Authorization` header into a principal. The token must verify, and its user must still exist in the
 * token's tenant; role and groups are read from the directory so a demotion or deletion takes effect at once.
 */
export async function authenticate(deps: AuthDeps, authorization: string | undefined): Promise<Principal> {
  if (!authorization) throw createError('UNAUTHORIZED', { reason: 'missing bearer token' });
  const match = /^Bearer\s+(\S+)$/i.exec(authorization.trim());
  if (!match?.[1]) throw createError('UNAUTHORIZED', { reason: 'the Authorization header must be "Bearer <token>"' });
  const claims = await deps.tokens.verify(match[1]);
  const user = deps.directory.getUser(claims.tenantId, claims.userId);
  if (!user) throw createError('UNAUTHORIZED', { reason: 'the user of this token no longer exists' });
  return { userId: user.id, tenantId: user.tenant_id, email: user.email, role: user.role, groups: user.groups };
}
