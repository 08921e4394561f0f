import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isGoDBError } from '@godb/contract';
import { LoginLimiter } from './login-limiter.js';

const limits = { maxFailures: 3, maxClientFailures: 100, lockoutS: 30, lockoutMaxS: 900 };

/** The wait LOGIN_THROTTLED asks for, or 0 when the attempt may go ahead (it is then counted as a failure). */
function tryFailing(limiter: LoginLimiter, client = 'c', email = 'ada@example.com'): number {
  try {
    limiter.begin(client, email)('failure');
    return 0;
  } catch (error) {
    assert.ok(isGoDBError(error) && error.code === 'LOGIN_THROTTLED');
    return error.details?.retry_after as number;
  }
}

test('each failure past the limit doubles the wait, up to the maximum', () => {
  let now = 0;
  const limiter = new LoginLimiter(limits, () => now);
  assert.deepEqual([tryFailing(limiter), tryFailing(limiter), tryFailing(limiter)], [0, 0, 0]);
  assert.equal(tryFailing(limiter), 30);
  now += 29_000;
  assert.equal(tryFailing(limiter), 1, 'still waiting, one second left');
  now += 1_000;
  assert.equal(tryFailing(limiter), 0, 'the wait is over: one more try');
  assert.equal(tryFailing(limiter), 60, 'and it failed: twice the wait');
  now += 60_000;
  tryFailing(limiter);
  assert.equal(tryFailing(limiter), 120);
  for (let i = 0; i < 10; i += 1) {
    now += 900_000;
    tryFailing(limiter);
  }
  assert.equal(tryFailing(limiter), 900, 'capped at lockoutMaxS');
});

test('e-mails are compared as the directory does (case and spaces do not make a new account)', () => {
  const limiter = new LoginLimiter(limits, () => 0);
  tryFailing(limiter, 'c', 'Ada@Example.com');
  tryFailing(limiter, 'c', ' ada@example.com');
  tryFailing(limiter, 'c', 'ADA@EXAMPLE.COM');
  assert.equal(tryFailing(limiter, 'c', 'ada@example.com'), 30);
});

test('failures are forgotten after lockoutMaxS without a new one', () => {
  let now = 0;
  const limiter = new LoginLimiter(limits, () => now);
  tryFailing(limiter);
  tryFailing(limiter);
  now += 900_001;
  tryFailing(limiter);
  tryFailing(limiter);
  assert.equal(tryFailing(limiter), 0, 'two old failures no longer count');
});

test('memory stays bounded under many clients', () => {
  let now = 0;
  const limiter = new LoginLimiter(limits, () => now);
  for (let i = 0; i < 120_000; i += 1) {
    now += 10_000; // each client's lone failure has expired by the time the map is swept
    tryFailing(limiter, `client-${i}`);
  }
  assert.ok(limiter.size <= 100_000, String(limiter.size));
});

test('an attempt answered without a password check (503) neither counts nor clears a failure', () => {
  const limiter = new LoginLimiter(limits, () => 0);
  tryFailing(limiter);
  tryFailing(limiter);
  for (let i = 0; i < 10; i += 1) limiter.begin('c', 'ada@example.com')('unchecked');
  assert.equal(tryFailing(limiter), 0, 'the third failure may still be tried');
  assert.equal(tryFailing(limiter), 30, 'and the count went on from two');
});
