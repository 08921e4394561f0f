import { directoryWrite } from './directory-write.js';
import { principalOf, type UseCaseOf } from '../context.js';
import type { AuthDeps } from './deps.js';
import { assertMayGrant, parseRole } from './roles.js';

export const assignRoleUseCase =
  (deps: AuthDeps): UseCaseOf<'assign-role'> =>
  async ({ body }, ctx) => {
    const caller = principalOf(ctx);
    const role = parseRole(body.role_id, 'body.role_id');
    assertMayGrant(caller, role);
    await directoryWrite(deps, 'updateUser', caller.tenantId, body.user_id, { role });
    return { success: true, message: `Role ${role} assigned to user ${body.user_id}` };
  };
