import { randomUUID } from 'node:crypto';
import { directoryWrite } from './directory-write.js';
import type { UseCaseOf } from '../context.js';
import type { AuthDeps } from './deps.js';

export const createPermissionUseCase =
  (deps: AuthDeps): UseCaseOf<'create-permission'> =>
  async ({ body }) => {
    const permission = await directoryWrite(
      deps,
      'createPermission',
      body.resource,
      body.action,
      body.description,
      randomUUID(),
    );
    return { permission_id: permission.id, message: 'Permission created' };
  };
