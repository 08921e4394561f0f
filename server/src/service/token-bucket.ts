/**
 * Per-client token buckets: each client may send `burst` requests at once and `rate` per second on average
 * (the same semantics as Go's rate.Limiter). Idle buckets are forgotten so memory stays bounded.
 */
export class TokenBuckets {
  readonly #rate: number;
  readonly #burst: number;
  readonly #now: () => number;
  readonly #buckets = new Map<string, { tokens: number; at: number }>();

  constructor(rate: number, burst: number, now: () => number) {
    this.#rate = rate;
    this.#burst = burst;
    this.#now = now;
  }

  /** Takes one token for `key`; answers 0 when allowed, else the seconds to wait before a token is free. */
  take(key: string): number {
    const now = this.#now();
    const bucket = this.#buckets.get(key) ?? { tokens: this.#burst, at: now };
    // A clock set back refills nothing (rather than taking tokens away).
    bucket.tokens = Math.min(this.#burst, bucket.tokens + (Math.max(0, now - bucket.at) / 1000) * this.#rate);
    bucket.at = now;
    this.#buckets.set(key, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 0;
    }
    if (this.#buckets.size > 10_000) this.#forgetFull(now);
    return Math.max(1, Math.ceil((1 - bucket.tokens) / this.#rate));
  }

  /** Drops buckets that have refilled completely: they behave exactly like a new bucket. */
  #forgetFull(now: number): void {
    for (const [key, bucket] of this.#buckets) {
      if (bucket.tokens + ((now - bucket.at) / 1000) * this.#rate >= this.#burst) this.#buckets.delete(key);
    }
  }
}
