import { principalOf, type UseCaseOf } from '../context.js';
import type { AuthDeps } from './deps.js';
import { keyOwnerScope } from './list-api-keys.js';

/** Deletes the key: nothing caches keys, so the next request made with it answers 401. */
export const revokeApiKeyUseCase =
  (deps: AuthDeps): UseCaseOf<'revoke-api-key'> =>
  async ({ params }, ctx) => {
    const caller = principalOf(ctx);
    const scope = keyOwnerScope(caller);
    const command = { tenantId: caller.tenantId, keyId: params.keyID, userId: scope };
    // One command, one write (ApiKeyStore.revoke), applied by every node in log order.
    await deps.log.submit({ kind: 'revoke-api-key', ...command });
    return { success: true, message: 'API key revoked' };
  };
