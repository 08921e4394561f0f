import { principalOf, type UseCaseOf } from '../context.js';
import { addUser } from './add-user.js';
import type { AuthDeps } from './deps.js';

/** A tenant admin adds a member (user or admin) to their own tenant. */
export const createUserUseCase =
  (deps: AuthDeps): UseCaseOf<'create-user'> =>
  async ({ body }, ctx) => {
    const caller = principalOf(ctx);
    const passwordHash = await deps.passwords.hash(body.password);
    const user = await addUser(
      deps,
      { tenantId: caller.tenantId, email: body.email, passwordHash, role: body.role },
      false,
    );
    return { success: true, message: 'User created', user_id: user.id, tenant_id: user.tenant_id, role: user.role };
  };
