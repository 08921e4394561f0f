import type { UseCaseOf } from '../context.js';
import { addUser } from './add-user.js';
import type { AuthDeps } from './deps.js';

/** Super admin only: creates an admin in any tenant, creating the tenant when needed. */
export const createAdminUserUseCase =
  (deps: AuthDeps): UseCaseOf<'create-admin-user'> =>
  async ({ body }) => {
    const passwordHash = await deps.passwords.hash(body.password);
    const user = await addUser(
      deps,
      { tenantId: body.tenant_id, email: body.email, passwordHash, role: 'admin' },
      false,
    );
    return {
      success: true,
      message: 'Admin user created',
      user_id: user.id,
      tenant_id: user.tenant_id,
      role: user.role,
    };
  };
