import { createError } from '@godb/contract';

export interface LoginLimits {
  /** Failures for one account from one client before that pair waits. */
  readonly maxFailures: number;
  /** Failures from one client, over all accounts, before the client waits. */
  readonly maxClientFailures: number;
  /** First wait in seconds; each further failure doubles it. */
  readonly lockoutS: number;
  /** Longest wait in seconds; a counter with no failure for this long is forgotten. */
  readonly lockoutMaxS: number;
}

interface Counter {
  failures: number;
  /** Attempts being checked now: counted as failures until they succeed, so a burst cannot outrun the count. */
  pending: number;
  lastFailureAt: number;
  lockedUntil: number;
}

/** How one attempt ends; call exactly once. */
/**
 * How an attempt ended: `unchecked` when no password was checked (the node answered 503: it could not serve the
 * login, as a cluster node still catching up with the log), which neither counts nor clears a failure.
 */
export type LoginAttempt = (outcome: 'success' | 'failure' | 'unchecked') => void;

/** Counters kept at most; beyond it expired ones are swept, then the least recently used dropped. */
const maxCounters = 100_000;

/**
 * Throttles password guessing (OWASP ASVS V2.2) with two counters: one per account and client, so a locked account
 * is not a lever to lock its owner out from elsewhere, and one per client over all accounts, against spraying one
 * password over many accounts. Past the limit each failure doubles the wait. A success clears the account's
 * counter for that client. Time comes from `now` (milliseconds), so tests control it.
 *
 * @example
 *   const attempt = limiter.begin('203.0.113.9', 'ada@example.com'); // throws 429 LOGIN_THROTTLED when locked
 *   attempt(ok ? 'success' : 'failure');
 */
export class LoginLimiter {
  readonly #limits: LoginLimits;
  readonly #now: () => number;
  readonly #counters = new Map<string, Counter>();

  constructor(limits: LoginLimits, now: () => number) {
    this.#limits = limits;
    this.#now = now;
  }

  /** Starts an attempt, or throws LOGIN_THROTTLED (with `retry_after` seconds) when the account or client waits. */
  begin(client: string, email: string): LoginAttempt {
    const now = this.#now();
    const pairKey = `${client}\u0000${email.trim().toLowerCase()}`;
    const pair = this.#counter(pairKey, now);
    const all = this.#counter(client, now);
    this.#refuseIfLocked(pair, this.#limits.maxFailures, now, 'for this account from this client');
    this.#refuseIfLocked(all, this.#limits.maxClientFailures, now, 'from this client');
    pair.pending += 1;
    all.pending += 1;
    this.#save(pairKey, pair);
    this.#save(client, all);
    let settled = false;
    return (outcome) => {
      if (settled) return;
      settled = true;
      pair.pending -= 1;
      all.pending -= 1;
      if (outcome === 'unchecked') return;
      if (outcome === 'success') {
        pair.failures = 0;
        pair.lockedUntil = 0;
        return;
      }
      const at = this.#now();
      this.#fail(pair, this.#limits.maxFailures, at);
      this.#fail(all, this.#limits.maxClientFailures, at);
    };
  }

  /** Counters held, for tests of the memory bound. */
  get size(): number {
    return this.#counters.size;
  }

  #counter(key: string, now: number): Counter {
    const counter = this.#counters.get(key);
    if (counter && !this.#expired(counter, now)) return counter;
    return { failures: 0, pending: 0, lastFailureAt: now, lockedUntil: 0 };
  }

  #expired(counter: Counter, now: number): boolean {
    return (
      counter.pending === 0 &&
      now >= counter.lockedUntil &&
      now - counter.lastFailureAt > this.#limits.lockoutMaxS * 1000
    );
  }

  #refuseIfLocked(counter: Counter, max: number, now: number, scope: string): void {
    let waitMs = counter.lockedUntil - now;
    // Attempts still being checked may each become a failure: while one is, refuse those that could pass the limit
    // (else a burst of parallel guesses would all be checked before the first failure counted).
    if (waitMs <= 0 && counter.pending > 0 && counter.failures + counter.pending >= max) waitMs = 1000;
    if (waitMs <= 0) return;
    const retryAfter = Math.max(1, Math.ceil(waitMs / 1000));
    throw createError('LOGIN_THROTTLED', { scope, retry_after: retryAfter }, { details: { retry_after: retryAfter } });
  }

  #fail(counter: Counter, max: number, now: number): void {
    counter.failures += 1;
    counter.lastFailureAt = now;
    if (counter.failures < max) return;
    const doublings = Math.min(30, counter.failures - max);
    const waitS = Math.min(this.#limits.lockoutMaxS, this.#limits.lockoutS * 2 ** doublings);
    counter.lockedUntil = now + waitS * 1000;
  }

  /** Stores a counter as the most recent (Map order is insertion order), keeping the map bounded. */
  #save(key: string, counter: Counter): void {
    this.#counters.delete(key);
    this.#counters.set(key, counter);
    if (this.#counters.size <= maxCounters) return;
    // Sweep down to 90 %, so the next sweep is thousands of attempts away.
    const target = Math.floor(maxCounters * 0.9);
    const now = this.#now();
    for (const [k, c] of this.#counters) if (this.#expired(c, now)) this.#counters.delete(k);
    for (const k of this.#counters.keys()) {
      if (this.#counters.size <= target) break;
      this.#counters.delete(k);
    }
  }
}
