import { directoryWrite } from './directory-write.js';
import { principalOf, type UseCaseOf } from '../context.js';
import type { AuthDeps } from './deps.js';
import { assertMayGrant, parseRole } from './roles.js';

export const updateUserUseCase =
  (deps: AuthDeps): UseCaseOf<'update-user'> =>
  async ({ params, body }, ctx) => {
    const caller = principalOf(ctx);
    const role = body.role === undefined ? undefined : parseRole(body.role);
    if (role) assertMayGrant(caller, role);
    const user = await directoryWrite(deps, 'updateUser', caller.tenantId, params.userID, {
      ...(body.email !== undefined && { email: body.email }),
      ...(role !== undefined && { role }),
      ...(body.groups !== undefined && { groups: body.groups }),
    });
    return { success: true, user };
  };
