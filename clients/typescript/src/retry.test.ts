import { test } from 'node:test';
import assert from 'node:assert/strict';
import { GoDBError } from './errors.js';
import { defaultRetry, isRetryable, retryDelay } from './retry.js';

const answered = (status: number, code: string) =>
  new GoDBError({ code: code as GoDBError['code'], message: code, status });

test('429 and refusals before any work are retried for every operation; other 503s only when idempotent', () => {
  assert.equal(isRetryable(answered(429, 'RATE_LIMITED'), false), true);
  assert.equal(isRetryable(answered(503, 'OVERLOADED'), false), true);
  assert.equal(isRetryable(answered(503, 'EMBEDDING_QUEUE_FULL'), false), false);
  assert.equal(isRetryable(answered(503, 'EMBEDDING_QUEUE_FULL'), true), true);
  assert.equal(isRetryable(answered(0, 'NETWORK_ERROR'), false), false);
  assert.equal(isRetryable(answered(0, 'NETWORK_ERROR'), true), true);
  assert.equal(isRetryable(answered(0, 'CLIENT_TIMEOUT'), true), false);
  assert.equal(isRetryable(answered(500, 'INTERNAL'), true), false);
  assert.equal(isRetryable(answered(400, 'VALIDATION_FAILED'), true), false);
});

test('backoff doubles its ceiling up to maxDelayMs, with full jitter; Retry-After wins when it is not too long', () => {
  const top = () => 0.999999;
  assert.equal(Math.round(retryDelay(0, undefined, defaultRetry, top) ?? -1), 250);
  assert.equal(Math.round(retryDelay(3, undefined, defaultRetry, top) ?? -1), 2000);
  assert.equal(Math.round(retryDelay(10, undefined, defaultRetry, top) ?? -1), 10_000);
  assert.equal(
    retryDelay(2, undefined, defaultRetry, () => 0),
    0,
  );
  assert.equal(
    retryDelay(0, 2, defaultRetry, () => 0),
    2000,
  );
  assert.equal(
    retryDelay(0, 2, defaultRetry, () => 0.5),
    2125,
  );
  assert.equal(
    retryDelay(0, 30, defaultRetry, () => 0),
    null,
    'a 30 s Retry-After exceeds the 10 s maximum',
  );
});
