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
  deps.directory.createUser({ tenantId: systemTenantId, email, passwordHash, role: 'superadmin' });
}
