import { principalOf, type Principal, type UseCaseOf } from '../context.js';
import { toApiKey } from './api-keys.js';
import type { AuthDeps } from './deps.js';
import { roleRank } from './roles.js';

/** Whose keys a caller manages: a tenant admin all of the tenant's (null), anyone else their own. */
export const keyOwnerScope = (caller: Principal): string | null =>
  roleRank[caller.role] >= roleRank.admin ? null : caller.userId;

export const listApiKeysUseCase =
  (deps: AuthDeps): UseCaseOf<'list-api-keys'> =>
  async ({ query }, ctx) => {
    const caller = principalOf(ctx);
    const { keys, total } = deps.apiKeys.list(caller.tenantId, keyOwnerScope(caller), query.offset, query.limit);
    return { keys: keys.map(toApiKey), total };
  };
