import { isGoDBError } from '@godb/contract';
import { addUser } from './add-user.js';
import type { AuthDeps } from './deps.js';

/** The tenant the bootstrapped super admin lives in; no registration can claim it (it is created first). */
export const systemTenantId = '00000000-0000-4000-8000-000000000000';

/**
 * Makes sure the configured super admin exists with the configured password. The environment is the source of
 * truth: changing SUPERADMIN_PASSWORD and restarting changes the password.
 */
export async function bootstrapSuperAdmin(deps: AuthDeps, email: string, password: string): Promise<void> {
  const passwordHash = await deps.passwords.hash(password);
  const existing = deps.directory.findUserByEmail(email);
  if (existing) {
    deps.directory.setPasswordHash(existing.id, passwordHash, 'superadmin');
    return;
  }
  try {
    await addUser(deps, { tenantId: systemTenantId, email, passwordHash, role: 'superadmin' }, false);
  } catch (error) {
    // Cluster mode: nodes starting together may each publish the creation; the first applied wins everywhere.
    if (!(deps.log && isGoDBError(error) && error.code === 'EMAIL_EXISTS')) throw error;
  }
}
