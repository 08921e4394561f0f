import { createError, isApiPath, isGoDBError } from '@godb/contract';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { LoginLimiter, type LoginLimits } from '../../service/auth/login-limiter.js';
import { sendError } from './error-reply.js';
import { requestPath } from './request-path.js';
import { TokenBuckets } from '../../service/token-bucket.js';

export interface GuardOptions {
  readonly rateLimitRps: number;
  readonly rateLimitBurst: number;
  readonly maxConcurrent: number;
  readonly writeTimeoutMs: number;
  readonly loginLimits: LoginLimits;
  readonly now: () => number;
  /** Which paths the guards apply to: the API's (isApiPath) unless told; the Qdrant port guards every path. */
  readonly isApi?: (path: string) => boolean;
  /**
   * Requests presenting a valid API key are limited per key (one budget over REST and gRPC, see
   * service/auth/api-keys.ts), not per client address; anything else, an invalid key included, per address.
   */
  readonly apiKeys: {
    idOf(request: FastifyRequest): string | null;
    /** Throws RATE_LIMITED when the key's budget is spent. */
    take(keyId: string): void;
  };
}

/** What the guards tell the metrics. */
export interface Guards {
  /** API requests holding an in-flight slot now. */
  inFlight(): number;
}

declare module 'fastify' {
  interface FastifyRequest {
    godbTimer: NodeJS.Timeout | null;
    /**
     * Aborted when the client goes away before its answer or the answer deadline passes, so long work (embedding
     * jobs, provider fetches) stops. Null outside the API.
     */
    godbAbort: AbortController | null;
  }
}

/**
 * Protects the API from overload: a token bucket per client address, or per API key (429 with Retry-After), a
 * ceiling on operations in flight (503), a deadline on each answer (504) and a failed-login limiter (429
 * LOGIN_THROTTLED). A slot in flight is released when its response ends, however it ends: answered, timed out, or
 * abandoned by its client (whose work is then aborted). Health, metrics and the website are not limited.
 */
export function registerGuards(app: FastifyInstance, options: GuardOptions): Guards {
  const buckets = new TokenBuckets(options.rateLimitRps, options.rateLimitBurst, options.now);
  const logins = new LoginLimiter(options.loginLimits, options.now);
  let inFlight = 0;
  app.decorateRequest('godbTimer', null);
  app.decorateRequest('godbAbort', null);

  app.addHook('onRequest', async (request, reply) => {
    if (!(options.isApi ?? isApiPath)(requestPath(request.url))) return;
    const keyId = options.apiKeys.idOf(request);
    const wait = keyId === null ? buckets.take(request.ip) : 0;
    if (keyId !== null) {
      try {
        options.apiKeys.take(keyId);
      } catch (error) {
        if (!isGoDBError(error)) throw error;
        return sendError(request, reply, error);
      }
    } else if (wait > 0) {
      return sendError(
        request,
        reply,
        createError(
          'RATE_LIMITED',
          { rate: options.rateLimitRps, burst: options.rateLimitBurst, retry_after: wait },
          { details: { retry_after: wait } },
        ),
      );
    }
    if (inFlight >= options.maxConcurrent) {
      return sendError(
        request,
        reply,
        createError('OVERLOADED', { max: options.maxConcurrent }, { details: { retry_after: 1 } }),
      );
    }
    inFlight += 1;
    const abort = new AbortController();
    request.godbAbort = abort;
    // A response ends with 'finish' (sent) or with 'close' alone (the connection dropped first). onResponse alone
    // missed the second case, so abandoned requests kept their slots for ever.
    onResponseEnd(reply, (sent) => {
      if (request.godbTimer) clearTimeout(request.godbTimer);
      inFlight -= 1;
      if (!sent) abort.abort(createError('REQUEST_CANCELLED'));
    });
    if (request.routeOptions.config.longRunning) return undefined;
    request.godbTimer = setTimeout(() => {
      const timeout = createError('REQUEST_TIMEOUT', { timeout_ms: options.writeTimeoutMs });
      abort.abort(timeout);
      if (!reply.sent) sendError(request, reply, timeout);
    }, options.writeTimeoutMs);
    return undefined;
  });

  app.addHook('preHandler', async (request, reply) => {
    if (request.routeOptions.config.operationId === 'login') limitLogin(logins, request, reply);
  });

  return { inFlight: () => inFlight };
}

/**
 * Refuses a login while its account and client (or the client alone) wait: LOGIN_THROTTLED reaches the error
 * handler, which adds Retry-After. Else counts the attempt's outcome when its response ends.
 */
function limitLogin(logins: LoginLimiter, request: FastifyRequest, reply: FastifyReply): void {
  const email = (request.body as { email?: unknown } | undefined)?.email;
  const attempt = logins.begin(request.ip, typeof email === 'string' ? email : '');
  // Anything but a delivered 200 counts as a failure, including a client that hung up before its answer — except a
  // 503, answered without checking a password (a cluster node catching up, an overloaded node): retrying it as its
  // Retry-After says must not lock the account.
  onResponseEnd(reply, (sent) =>
    attempt(sent && reply.statusCode === 200 ? 'success' : sent && reply.statusCode === 503 ? 'unchecked' : 'failure'),
  );
}

/**
 * Calls `done` once when the response ends: `sent` when it was sent whole ('finish'), else the connection dropped
 * before ('close' without 'finish'). 'finish' comes first when both do, so the next request sees the outcome.
 */
function onResponseEnd(reply: FastifyReply, done: (sent: boolean) => void): void {
  let ended = false;
  const end = (sent: boolean) => {
    if (ended) return;
    ended = true;
    done(sent);
  };
  reply.raw.once('finish', () => end(true));
  reply.raw.once('close', () => end(false));
}
