import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { createError, type ApiKey } from '@godb/contract';
import type { ApiKeyStore, StoredApiKey } from '../../engine/directory/api-key-store.js';
import type { Directory } from '../../engine/directory/directory.js';
import type { Principal } from '../context.js';
import { TokenBuckets } from '../token-bucket.js';
import { roleRank } from './roles.js';

/** Every key starts with this, so people, secret scanners and the server can tell a key from a login token. */
export const apiKeyPrefix = 'godb_';
const keyPattern = /^godb_([0-9a-f]{16})_([0-9a-f]{64})$/;

/** Keys one user may hold, expired ones included. */
export const maxApiKeysPerUser = 100;
/** `last_used_at` is written at most once per this many seconds per key: one write a minute, not one per request. */
export const lastUsedResolutionS = 60;

/** One message for an unknown, expired, revoked or malformed key, so a caller learns nothing about which it was. */
export const invalidApiKey = () =>
  createError('UNAUTHORIZED', { reason: 'this API key is unknown, expired or revoked' });

/**
 * A new key: 8 random bytes of id and 32 of secret, as hex. Only the SHA-256 of the secret is stored; a slow
 * password hash adds nothing to 256 random bits (docs/decisions/0008) and would cost every request.
 *
 * @example generateApiKey().key // 'godb_3f9c2a7e1b4d8c06_9b1f…' (86 characters)
 */
export function generateApiKey(): { id: string; key: string; secretHash: Buffer } {
  const id = randomBytes(8).toString('hex');
  const secret = randomBytes(32).toString('hex');
  return { id, key: `${apiKeyPrefix}${id}_${secret}`, secretHash: hashSecret(secret) };
}

function hashSecret(secret: string): Buffer {
  return createHash('sha256').update(secret, 'utf8').digest();
}

/** Whether a bearer token is meant as an API key (login tokens are JWTs, which start with `eyJ`). */
export const isApiKeyText = (token: string) => token.startsWith(apiKeyPrefix);

/** The key's public form, as lists show it. */
export function toApiKey(stored: StoredApiKey): ApiKey {
  return {
    id: stored.id,
    name: stored.name,
    role: stored.role,
    prefix: `${apiKeyPrefix}${stored.id}`,
    user_id: stored.userId,
    user_email: stored.userEmail,
    created_at: stored.createdAt,
    ...(stored.expiresAt !== null && { expires_at: stored.expiresAt }),
    ...(stored.lastUsedAt !== null && { last_used_at: stored.lastUsedAt }),
  };
}

export interface ApiKeyDeps {
  readonly directory: Directory;
  readonly apiKeys: ApiKeyStore;
  /** Milliseconds since the Unix epoch. */
  readonly now: () => number;
}

/**
 * Checks a presented key against the store (read on every call: a revoked key fails at the next request) and
 * answers its principal: the key's user, in the key's tenant, with the lower of the key's role and the user's
 * current one (a demotion lowers the user's keys too) and the user's current groups. Throws UNAUTHORIZED, with
 * the same message whatever is wrong.
 */
export function verifyApiKey(deps: ApiKeyDeps, presented: string): { key: StoredApiKey; principal: Principal } {
  const match = keyPattern.exec(presented);
  if (!match) throw invalidApiKey();
  const [, id = '', secret = ''] = match;
  const key = deps.apiKeys.find(id);
  // A constant-time comparison of the hashes: the time taken says nothing about how much of the secret was right.
  if (!key || !timingSafeEqual(key.secretHash, hashSecret(secret))) throw invalidApiKey();
  const now = Math.floor(deps.now() / 1000);
  if (key.expiresAt !== null && key.expiresAt <= now) throw invalidApiKey();
  const user = deps.directory.getUser(key.tenantId, key.userId);
  if (!user) throw invalidApiKey();
  const role = roleRank[key.role] <= roleRank[user.role] ? key.role : user.role;
  return {
    key,
    principal: {
      userId: user.id,
      tenantId: user.tenant_id,
      email: user.email,
      role,
      groups: user.groups,
      apiKeyId: key.id,
    },
  };
}

/** Verifies a key and records its use, writing `last_used_at` only when the stored one is a minute old or more. */
export function authenticateApiKey(deps: ApiKeyDeps, presented: string): Principal {
  const { key, principal } = verifyApiKey(deps, presented);
  const now = Math.floor(deps.now() / 1000);
  if (key.lastUsedAt === null || now - key.lastUsedAt >= lastUsedResolutionS) deps.apiKeys.touch(key.id, now);
  return principal;
}

/**
 * One token bucket per key, shared by REST and gRPC: a key's requests are limited per key (`RATE_LIMIT_RPS`,
 * `RATE_LIMIT_BURST`), wherever they come from, and apart from its client address's bucket.
 */
export class ApiKeyRateLimit {
  readonly #buckets: TokenBuckets;
  readonly #rate: number;
  readonly #burst: number;

  constructor(limits: { rate: number; burst: number; now: () => number }) {
    this.#buckets = new TokenBuckets(limits.rate, limits.burst, limits.now);
    this.#rate = limits.rate;
    this.#burst = limits.burst;
  }

  /** Takes one request from the key's bucket; throws RATE_LIMITED (429 with Retry-After) when it is empty. */
  take(keyId: string): void {
    const wait = this.#buckets.take(keyId);
    if (wait > 0) {
      throw createError(
        'RATE_LIMITED',
        { rate: this.#rate, burst: this.#burst, retry_after: wait },
        { details: { retry_after: wait } },
      );
    }
  }
}
