import { createError } from '@godb/contract';
import { principalOf, type UseCaseOf } from '../context.js';
import type { AuthDeps } from './deps.js';
import { keyOwnerScope } from './list-api-keys.js';

/** Deletes the key: nothing caches keys, so the next request made with it answers 401. */
export const revokeApiKeyUseCase =
  (deps: AuthDeps): UseCaseOf<'revoke-api-key'> =>
  async ({ params }, ctx) => {
    const caller = principalOf(ctx);
    const scope = keyOwnerScope(caller);
    // Cluster mode: every node deletes the key (NOT_FOUND, when it is not there, is decided in log order).
    if (deps.log) {
      await deps.log.submit({ kind: 'revoke-api-key', tenantId: caller.tenantId, keyId: params.keyID, userId: scope });
    } else if (!deps.apiKeys.delete(caller.tenantId, params.keyID, scope)) {
      throw createError('NOT_FOUND', { resource: 'API key', id: params.keyID });
    }
    return { success: true, message: 'API key revoked' };
  };
