import { principalOf, type UseCaseOf } from '../context.js';
import type { AuthDeps } from './deps.js';

export const listUsersUseCase =
  (deps: AuthDeps): UseCaseOf<'list-users'> =>
  async ({ query }, ctx) =>
    deps.directory.listUsers(principalOf(ctx).tenantId, query.offset, query.limit);
