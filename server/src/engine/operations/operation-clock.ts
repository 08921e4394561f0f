import type { Clock } from '../clock.js';

/**
 * The engine's clock in cluster mode: the wall clock, except while an operation is applied, when it reads the
 * operation's time. Applying is synchronous, so nothing else runs while it is pinned.
 *
 * @example const clock = new OperationClock(systemClock); clock.during(op.now, () => apply(op));
 */
export class OperationClock implements Clock {
  readonly #inner: Clock;
  #pinned: number | null = null;

  constructor(inner: Clock) {
    this.#inner = inner;
  }

  now(): number {
    return this.#pinned ?? this.#inner.now();
  }

  /** Runs `work` with the time held at `ms`. */
  during<T>(ms: number, work: () => T): T {
    const before = this.#pinned;
    this.#pinned = ms;
    try {
      return work();
    } finally {
      this.#pinned = before;
    }
  }
}
