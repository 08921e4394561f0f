import type { UseCaseOf } from '../context.js';
import type { AuthDeps } from './deps.js';

/** Super admin only: creates an admin in any tenant, creating the tenant when needed. */
export const createAdminUserUseCase =
  (deps: AuthDeps): UseCaseOf<'create-admin-user'> =>
  async ({ body }) => {
    const passwordHash = await deps.passwords.hash(body.password);
    const user = deps.directory.createUser({
      tenantId: body.tenant_id,
      email: body.email,
      passwordHash,
      role: 'admin',
    });
    return {
      success: true,
      message: 'Admin user created',
      user_id: user.id,
      tenant_id: user.tenant_id,
      role: user.role,
    };
  };
