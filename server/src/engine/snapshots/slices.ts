import type { Clock } from '../clock.js';

/**
 * The work one slice of a tenant snapshot or restore does before it yields to the event loop: long enough that the
 * per-slice costs (a transaction's commit, statements prepared, the event-loop turn) stay small beside it, short
 * enough that another tenant's request waits at most about this long.
 */
export const sliceBudgetMs = 40;

/**
 * Sizes the slices of a long job by time rather than by a fixed number of rows: each slice is timed, and the next
 * one is sized so that it takes about `budgetMs` (at most twice the last, at least a quarter of it, between 1 and
 * `max`). Rows cost very different amounts of work — a 60-word chunk to tokenize, a 2 KB vector to copy, an index
 * entry to delete — so a fixed count is either too short for cheap rows or holds the node for expensive ones.
 *
 * @example const sizer = new SliceSizer(clock, 100_000); const done = sizer.measure((size) => copy(after, after + size));
 */
export class SliceSizer {
  readonly #clock: Clock;
  readonly #max: number;
  readonly #budgetMs: number;
  #size: number;

  constructor(clock: Clock, max: number, budgetMs = sliceBudgetMs) {
    this.#clock = clock;
    this.#max = Math.max(1, Math.floor(max));
    this.#budgetMs = budgetMs;
    this.#size = Math.min(this.#max, 256);
  }

  /** The size of the next slice. */
  get size(): number {
    return this.#size;
  }

  /** Runs one slice of the current size and sizes the next from how long it took. */
  measure<T>(slice: (size: number) => T): T {
    const started = this.#clock.now();
    const result = slice(this.#size);
    const elapsed = this.#clock.now() - started;
    const scale = elapsed <= 0 ? 2 : Math.min(2, Math.max(0.25, this.#budgetMs / elapsed));
    this.#size = Math.max(1, Math.min(this.#max, Math.round(this.#size * scale)));
    return result;
  }
}

/** Resolves at the event loop's next turn: where a sliced job lets other requests run. */
export const nextTurn = (): Promise<void> => new Promise<void>((resolve) => setImmediate(resolve));

/** The largest slice of a tenant snapshot (rows, or a rowid range): the time budget sizes them below this. */
export const maxSliceRows = 100_000;

/** Seqs or rowids from `low` to `high`, both included (`low` > `high`: none). */
export interface Bounds {
  readonly low: number;
  readonly high: number;
}

/**
 * Walks `bounds` in consecutive ranges (`after` excluded, `through` included) sized by `sizer`, each range one call
 * of `slice`, and awaits `between(rows)` after each (the caller yields to the event loop there); `slice` answers the
 * rows it handled, or null to stop early. Answers the rows handled in all.
 *
 * @example await walkRanges(bounds, sizer, (after, through) => copy(after, through), (rows) => step(rows));
 */
export async function walkRanges(
  bounds: Bounds,
  sizer: SliceSizer,
  slice: (after: number, through: number) => number | null,
  between: (rows: number) => Promise<void>,
): Promise<number> {
  let total = 0;
  for (let after = bounds.low - 1; after < bounds.high;) {
    const through = Math.min(bounds.high, after + sizer.size);
    const rows = sizer.measure(() => slice(after, through));
    if (rows === null) break;
    total += rows;
    after = through;
    await between(rows);
  }
  return total;
}
