import type { GoDBError } from './errors.js';
import type { RetryOptions } from './types.js';

export const defaultRetry: RetryOptions = { retries: 3, baseDelayMs: 250, maxDelayMs: 10_000 };

/**
 * Answers that refuse a request before the server does any of its work (the rate limiter, the ceiling on
 * operations in flight, a server shutting down): sending it again is safe whatever the operation, POSTs included.
 */
const refusedBeforeWork: ReadonlySet<string> = new Set([
  'RATE_LIMITED',
  'LOGIN_THROTTLED',
  'SENDER_THROTTLED',
  'OVERLOADED',
  'SHUTTING_DOWN',
]);

/**
 * Whether a failed attempt may be sent again. Every 429, and a 503 that refused the request before any work, are
 * retried for every operation. Other 503s (a full embedding queue, storage unavailable) and network failures may
 * come after the server did part of the work, so only idempotent operations (GET, PUT, DELETE and the POSTs that
 * only read: searches, counts, scrolls, embeddings) are retried then. Timeouts and other errors are not retried.
 */
export function isRetryable(error: GoDBError, idempotent: boolean): boolean {
  if (error.status === 429) return true;
  if (error.status === 503) return refusedBeforeWork.has(error.code) || idempotent;
  return error.code === 'NETWORK_ERROR' && idempotent;
}

/**
 * Milliseconds to wait before retry number `attempt` (0 for the first), or null to give up. A Retry-After is
 * honoured (plus up to `baseDelayMs` of jitter, so clients refused together do not return together) unless it is
 * longer than `maxDelayMs`; without one, exponential backoff with full jitter: a random wait below
 * min(maxDelayMs, baseDelayMs × 2^attempt).
 */
export function retryDelay(
  attempt: number,
  retryAfterSeconds: number | undefined,
  options: RetryOptions,
  random: () => number = Math.random,
): number | null {
  if (retryAfterSeconds !== undefined) {
    const wait = retryAfterSeconds * 1000;
    return wait > options.maxDelayMs ? null : wait + random() * options.baseDelayMs;
  }
  return random() * Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** attempt);
}

/** Waits `ms`, or rejects with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason as Error);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason as Error);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
