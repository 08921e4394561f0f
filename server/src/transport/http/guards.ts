import { createError, isApiPath } from '@godb/contract';
import type { FastifyInstance } from 'fastify';
import { sendError } from './error-reply.js';
import { TokenBuckets } from './token-bucket.js';

export interface GuardOptions {
  readonly rateLimitRps: number;
  readonly rateLimitBurst: number;
  readonly maxConcurrent: number;
  readonly writeTimeoutMs: number;
  readonly now: () => number;
}

declare module 'fastify' {
  interface FastifyRequest {
    godbGuarded: boolean;
    godbTimer: NodeJS.Timeout | null;
  }
}

/**
 * Protects the API from overload: a per-client token bucket (429 with Retry-After), a ceiling on operations in
 * flight (503), and a deadline on each answer (504). Health, metrics and the website are not limited.
 */
export function registerGuards(app: FastifyInstance, options: GuardOptions): void {
  const buckets = new TokenBuckets(options.rateLimitRps, options.rateLimitBurst, options.now);
  let inFlight = 0;
  app.decorateRequest('godbGuarded', false);
  app.decorateRequest('godbTimer', null);

  app.addHook('onRequest', async (request, reply) => {
    if (!isApiPath(request.url.split('?')[0] ?? '')) return;
    const wait = buckets.take(request.ip);
    if (wait > 0) {
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
    request.godbGuarded = true;
    if (request.routeOptions.config.longRunning) return undefined;
    request.godbTimer = setTimeout(() => {
      if (!reply.sent)
        sendError(request, reply, createError('REQUEST_TIMEOUT', { timeout_ms: options.writeTimeoutMs }));
    }, options.writeTimeoutMs);
    return undefined;
  });

  app.addHook('onResponse', async (request) => {
    if (request.godbTimer) clearTimeout(request.godbTimer);
    if (request.godbGuarded) inFlight -= 1;
  });
}
