import type { Outcome } from '../../engine/operations/operation-applier.js';

/** Outcomes of operations (taken by any node) kept for a duplicate publish, a retried request, to answer with. */
const keptOutcomes = 10_000;

/** A publisher's wait for one operation's outcome. */
export interface Expected {
  /** The outcome kept already (the operation was applied here before), or undefined. */
  readonly kept: Outcome | undefined;
  /** The kept outcome, or one that resolves when this node applies the operation. */
  readonly outcome: Promise<Outcome> | Outcome;
  /** Stops waiting (the publish failed or gave up). */
  readonly forget: () => void;
}

/**
 * What applying each operation answered, by operation id: awaited by the publish that took it on this node, and
 * kept (the last {@link keptOutcomes}) for a duplicate publish or a retried request, which answer the same.
 *
 * @example
 *   const { outcome, forget } = outcomes.expect(op.id); // before publishing
 *   outcomes.keep(op.id, applied.outcome); outcomes.resolve(op.id, applied.outcome); // after applying
 */
export class Outcomes {
  readonly #waiting = new Map<string, ((outcome: Outcome) => void)[]>();
  readonly #kept = new Map<string, Outcome>();

  /** Waits for the outcome of operation `id` (at once when it is kept). */
  expect(id: string): Expected {
    const kept = this.#kept.get(id);
    let waiter: ((outcome: Outcome) => void) | null = null;
    const outcome =
      kept ??
      new Promise<Outcome>((resolve) => {
        waiter = resolve;
        this.#waiting.set(id, [...(this.#waiting.get(id) ?? []), resolve]);
      });
    const forget = () => {
      const left = (this.#waiting.get(id) ?? []).filter((resolve) => resolve !== waiter);
      if (left.length > 0) this.#waiting.set(id, left);
      else this.#waiting.delete(id);
    };
    return { kept, outcome, forget };
  }

  /** True when the outcome of operation `id` is kept. */
  has(id: string): boolean {
    return this.#kept.has(id);
  }

  /** Keeps the outcome of operation `id`, dropping the oldest past {@link keptOutcomes}. */
  keep(id: string, outcome: Outcome): void {
    this.#kept.set(id, outcome);
    const oldest = this.#kept.keys().next().value;
    if (this.#kept.size > keptOutcomes && oldest !== undefined) this.#kept.delete(oldest);
  }

  /** Answers the publishes waiting for operation `id`. */
  resolve(id: string, outcome: Outcome): void {
    for (const resolve of this.#waiting.get(id) ?? []) resolve(outcome);
    this.#waiting.delete(id);
  }
}
