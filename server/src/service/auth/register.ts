import type { UseCaseOf } from '../context.js';
import type { AuthDeps } from './deps.js';

/** Creates a tenant and its first user, who becomes the tenant's admin. */
export const registerUseCase =
  (deps: AuthDeps): UseCaseOf<'register'> =>
  async ({ body }) => {
    const passwordHash = await deps.passwords.hash(body.password);
    const user = deps.directory.registerTenant({
      tenantId: body.tenant_id,
      email: body.email,
      passwordHash,
      role: 'admin',
    });
    return { success: true, message: 'User registered', user_id: user.id, tenant_id: user.tenant_id, role: user.role };
  };
