import { isGoDBError } from '@godb/contract';
import { addUser } from './add-user.js';
import { directoryWrite } from './directory-write.js';
import type { AuthDeps } from './deps.js';

/** The tenant the bootstrapped super admin lives in; no registration can claim it (it is created first). */
export const systemTenantId = '00000000-0000-4000-8000-000000000000';

/**
 * Makes sure the configured super admin exists with the configured password. The environment is the source of
 * truth: changing SUPERADMIN_PASSWORD and restarting changes the password.
 */
export async function bootstrapSuperAdmin(deps: AuthDeps, email: string, password: string): Promise<void> {
  const existing = deps.directory.findUserByEmail(email);
  if (existing) {
    // Written only when it changed: every restart of every node would otherwise submit a new hash (a new salt).
    const current = existing.role === 'superadmin' && (await deps.passwords.verify(existing.passwordHash, password));
    if (!current)
      await directoryWrite(deps, 'setPasswordHash', existing.id, await deps.passwords.hash(password), 'superadmin');
    return;
  }
  const passwordHash = await deps.passwords.hash(password);
  try {
    await addUser(deps, { tenantId: systemTenantId, email, passwordHash, role: 'superadmin' }, false);
  } catch (error) {
    // Nodes of a cluster starting together may each submit the creation; the first applied wins everywhere.
    if (!(isGoDBError(error) && error.code === 'EMAIL_EXISTS')) throw error;
  }
}
