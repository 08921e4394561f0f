import { directoryWrite } from './directory-write.js';
import { principalOf, type UseCaseOf } from '../context.js';
import type { AuthDeps } from './deps.js';

export const deleteUserUseCase =
  (deps: AuthDeps): UseCaseOf<'delete-user'> =>
  async ({ params }, ctx) => {
    await directoryWrite(deps, 'deleteUser', principalOf(ctx).tenantId, params.userID);
    return { success: true, message: 'User deleted' };
  };
