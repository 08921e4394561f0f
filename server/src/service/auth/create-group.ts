import { randomUUID } from 'node:crypto';
import { directoryWrite } from './directory-write.js';
import { createError } from '@godb/contract';
import { principalOf, type UseCaseOf } from '../context.js';
import type { AuthDeps } from './deps.js';

export const createGroupUseCase =
  (deps: AuthDeps): UseCaseOf<'create-group'> =>
  async ({ body }, ctx) => {
    const caller = principalOf(ctx);
    if (body.tenant_id !== undefined && body.tenant_id !== '' && body.tenant_id !== caller.tenantId) {
      // Another tenant is never revealed: it is simply not found from here.
      throw createError('NOT_FOUND', { resource: 'Tenant', id: body.tenant_id }, { field: 'body.tenant_id' });
    }
    const group = await directoryWrite(deps, 'createGroup', caller.tenantId, body.name, body.description, randomUUID());
    return { group_id: group.id, message: `Group ${group.name} created` };
  };
