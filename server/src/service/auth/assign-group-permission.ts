import { directoryWrite } from './directory-write.js';
import { principalOf, type UseCaseOf } from '../context.js';
import type { AuthDeps } from './deps.js';

export const assignGroupPermissionUseCase =
  (deps: AuthDeps): UseCaseOf<'assign-group-permission'> =>
  async ({ params, body }, ctx) => {
    await directoryWrite(deps, 'grantPermission', principalOf(ctx).tenantId, params.groupID, body.permission_id);
    return { success: true, message: 'Permission granted to group' };
  };
