import { principalOf, type UseCaseOf } from '../context.js';
import type { AuthDeps } from './deps.js';

export const getUserUseCase =
  (deps: AuthDeps): UseCaseOf<'get-user'> =>
  async ({ params }, ctx) => ({ user: deps.directory.requireUser(principalOf(ctx).tenantId, params.userID) });
