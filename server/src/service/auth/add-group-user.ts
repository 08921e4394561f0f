import { directoryWrite } from './directory-write.js';
import { principalOf, type UseCaseOf } from '../context.js';
import type { AuthDeps } from './deps.js';

export const addGroupUserUseCase =
  (deps: AuthDeps): UseCaseOf<'add-group-user'> =>
  async ({ params, body }, ctx) => {
    await directoryWrite(deps, 'addMember', principalOf(ctx).tenantId, params.groupID, body.user_id);
    return { success: true, message: 'User added to group' };
  };
