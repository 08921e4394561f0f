import { createError } from '@godb/contract';
import { principalOf, type UseCaseOf } from '../context.js';
import { generateApiKey, maxApiKeysPerUser, toApiKey } from './api-keys.js';
import type { StoredApiKey } from '../../engine/directory/api-key-store.js';
import type { AuthDeps } from './deps.js';
import { roleRank } from './roles.js';

const iso = (seconds: number) => new Date(seconds * 1000).toISOString().replace('.000Z', 'Z');

/** Creates a key for the caller, with a role no higher than theirs; its secret is answered once and stored hashed. */
export const createApiKeyUseCase =
  (deps: AuthDeps): UseCaseOf<'create-api-key'> =>
  async ({ body }, ctx) => {
    const caller = principalOf(ctx);
    // A key that could mint keys would outlive its own revocation through the keys it made.
    if (caller.apiKeyId !== undefined) {
      throw createError('FORBIDDEN', {
        reason: 'API keys are created with a login token, not with another API key: log in to create one',
      });
    }
    if (roleRank[body.role] > roleRank[caller.role]) {
      throw createError(
        'FORBIDDEN',
        { reason: `a key's role cannot exceed yours: you are ${caller.role} and asked for ${body.role}` },
        { field: 'body.role' },
      );
    }
    const now = Math.floor(deps.now() / 1000);
    if (body.expires_at !== undefined && body.expires_at <= now) {
      throw createError(
        'API_KEY_EXPIRY_PAST',
        { expires_at: iso(body.expires_at), now: iso(now) },
        { field: 'body.expires_at' },
      );
    }
    const { id, key, secretHash } = generateApiKey();
    const newKey = {
      id,
      tenantId: caller.tenantId,
      userId: caller.userId,
      name: body.name,
      role: body.role,
      expiresAt: body.expires_at ?? null,
    };
    // The id and the secret's hash travel in the log (never the secret); every node stores the key.
    const stored = (await deps.log.submit({
      kind: 'create-api-key',
      key: { ...newKey, secretHash: secretHash.toString('hex') },
      maxPerUser: maxApiKeysPerUser,
    })) as StoredApiKey;
    return { ...toApiKey(stored), key };
  };
