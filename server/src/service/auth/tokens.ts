import { errors as joseErrors, jwtVerify, SignJWT } from 'jose';
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

/**
 * HS256 JWTs carrying user id (`sub`), tenant id (`tid`), role and groups. Only HS256 is accepted, so tokens
 * with `alg: none` or another algorithm are refused.
 */
export function createTokenService(secret: string, ttlSeconds: number, clock: Clock): TokenService {
  const key = new TextEncoder().encode(secret);
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
      try {
        const { payload } = await jwtVerify(token, key, {
          algorithms: ['HS256'],
          issuer,
          currentDate: new Date(clock.now()),
        });
        if (typeof payload.sub !== 'string' || typeof payload.tid !== 'string') {
          throw createError('UNAUTHORIZED', { reason: 'token lacks subject or tenant' });
        }
        return {
          userId: payload.sub,
          tenantId: payload.tid,
          role: payload.role as RoleName,
          groups: Array.isArray(payload.groups) ? (payload.groups as string[]) : [],
        };
      } catch (error) {
        if (error instanceof joseErrors.JWTExpired)
          throw createError('UNAUTHORIZED', { reason: 'token expired, log in again' });
        if (error instanceof joseErrors.JOSEError) throw createError('UNAUTHORIZED', { reason: 'invalid token' });
        throw error;
      }
    },
  };
}
