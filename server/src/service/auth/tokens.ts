import { errors as joseErrors, jwtVerify, SignJWT } from 'jose';
import { LRUCache } from 'lru-cache';
import { createError, type RoleName, type User } from '@godb/contract';
import type { Clock } from '../../engine/clock.js';

export interface TokenClaims {
  readonly userId: string;
  readonly tenantId: string;
  readonly role: RoleName;
  readonly groups: readonly string[];
}

export interface TokenService {
  issue(user: User): Promise<{ token: string; expiresAt: number }>;
  /** Verifies signature, algorithm and expiry; throws UNAUTHORIZED with the reason otherwise. */
  verify(token: string): Promise<TokenClaims>;
}

const issuer = 'godb';
/** Tokens whose signature was verified, kept with their claims: a client sends the same token with every call. */
const verifiedTokens = 10_000;

/**
 * HS256 JWTs carrying user id (`sub`), tenant id (`tid`), role and groups. Only HS256 is accepted, so tokens
 * with `alg: none` or another algorithm are refused.
 */
export function createTokenService(secret: string, ttlSeconds: number, clock: Clock): TokenService {
  const key = new TextEncoder().encode(secret);
  // A signature that verified once verifies again (the key does not change while the process runs): only the expiry
  // is checked on later calls. HMAC through WebCrypto is a round trip to libuv's thread pool on every request (it
  // showed in profiles of bench:scale's searches). The user is still read on every call
  // (authenticate.ts), so a deletion or a new role applies at once.
  const verified = new LRUCache<string, { claims: TokenClaims; expiresAt: number }>({ max: verifiedTokens });
  const expired = () => createError('UNAUTHORIZED', { reason: 'token expired, log in again' });
  return {
    async issue(user) {
      const issuedAt = Math.floor(clock.now() / 1000);
      const expiresAt = issuedAt + ttlSeconds;
      const token = await new SignJWT({ tid: user.tenant_id, role: user.role, groups: user.groups })
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
        .setSubject(user.id)
        .setIssuer(issuer)
        .setIssuedAt(issuedAt)
        .setExpirationTime(expiresAt)
        .sign(key);
      return { token, expiresAt };
    },
    async verify(token) {
      const known = verified.get(token);
      if (known) {
        if (clock.now() >= known.expiresAt * 1000) throw expired();
        return known.claims;
      }
      try {
        const { payload } = await jwtVerify(token, key, {
          algorithms: ['HS256'],
          issuer,
          currentDate: new Date(clock.now()),
        });
        if (typeof payload.sub !== 'string' || typeof payload.tid !== 'string') {
          throw createError('UNAUTHORIZED', { reason: 'token lacks subject or tenant' });
        }
        const claims: TokenClaims = {
          userId: payload.sub,
          tenantId: payload.tid,
          role: payload.role as RoleName,
          groups: Array.isArray(payload.groups) ? (payload.groups as string[]) : [],
        };
        // Tokens GoDB issues always expire; one without `exp` (only a holder of the secret could make it) is not kept.
        if (typeof payload.exp === 'number') verified.set(token, { claims, expiresAt: payload.exp });
        return claims;
      } catch (error) {
        if (error instanceof joseErrors.JWTExpired) throw expired();
        if (error instanceof joseErrors.JOSEError) throw createError('UNAUTHORIZED', { reason: 'invalid token' });
        throw error;
      }
    },
  };
}
