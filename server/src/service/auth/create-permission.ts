import type { UseCaseOf } from '../context.js';
import type { AuthDeps } from './deps.js';

export const createPermissionUseCase =
  (deps: AuthDeps): UseCaseOf<'create-permission'> =>
  async ({ body }) => {
    const permission = deps.directory.createPermission(body.resource, body.action, body.description);
    return { permission_id: permission.id, message: 'Permission created' };
  };
