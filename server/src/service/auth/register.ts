import { nothingRegistered } from '@godb/contract';
import { StatusResult } from '../status-result.js';
import type { UseCaseOf } from '../context.js';
import { addUser } from './add-user.js';
import type { AuthDeps } from './deps.js';

/**
 * Creates a tenant and its first user, who becomes the tenant's admin. Without a tenant_id nothing is created:
 * the website's login action calls register first and ignores the answer, so a mistyped e-mail there must not
 * become a new tenant (it then fails at login with "Invalid email or password").
 */
export const registerUseCase =
  (deps: AuthDeps): UseCaseOf<'register'> =>
  async ({ body }) => {
    if (body.tenant_id === undefined)
      return new StatusResult(200, { success: false, message: nothingRegistered }) as never;
    const passwordHash = await deps.passwords.hash(body.password);
    const user = await addUser(
      deps,
      { tenantId: body.tenant_id, email: body.email, passwordHash, role: 'admin' },
      true,
    );
    return { success: true, message: 'User registered', user_id: user.id, tenant_id: user.tenant_id, role: user.role };
  };
