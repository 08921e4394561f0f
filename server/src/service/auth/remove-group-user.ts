import { directoryWrite } from './directory-write.js';
import { principalOf, type UseCaseOf } from '../context.js';
import type { AuthDeps } from './deps.js';

export const removeGroupUserUseCase =
  (deps: AuthDeps): UseCaseOf<'remove-group-user'> =>
  async ({ params }, ctx) => {
    await directoryWrite(deps, 'removeMember', principalOf(ctx).tenantId, params.groupID, params.userID);
    return { success: true, message: 'User removed from group' };
  };
