import type { Clock } from '../clock.js';
import type { Snapshots } from '../snapshots/snapshots.js';
import type { OperationApplier } from './operation-applier.js';
import type { ClusterReads, SubmitOptions, Operation, OperationBody, OperationLog } from './operation.js';

export interface LocalLogOptions {
  readonly applier: OperationApplier;
  /** The engine's clock: an operation's time is read from it when it is submitted. */
  readonly clock: Clock;
  /** This node's id (NODE_ID): operations name the node that took them. */
  readonly node: string;
  /** Where restores keep their archive copy (see Snapshots.keep). */
  readonly snapshots: Snapshots | null;
}

/**
 * The embedded node's log: an operation is applied at once, in the caller's turn, at the time decided when it was
 * submitted — the same applier, and the same operations, as a cluster node applies from the NATS log. It is the only
 * copy, so it is always current: nothing to catch up with, never stale.
 *
 * @example const log = new LocalLog({ applier, clock, node: 'local', snapshots }); await log.submit(op);
 */
export class LocalLog implements OperationLog, ClusterReads {
  readonly #options: LocalLogOptions;
  #next = 0;

  constructor(options: LocalLogOptions) {
    this.#options = options;
  }

  /**
   * Applies the operation before it returns — a write without a restore is in the store, or refused, when the call
   * returns (no turn of the event loop in between) — and resolves once its tail (purged files) is done.
   */
  submit(body: OperationBody, options?: SubmitOptions): Promise<unknown> {
    const { applier, clock, node } = this.#options;
    this.#next += 1;
    const op = { ...body, id: `${node}-${this.#next}`, node, now: options?.at ?? clock.now() } as Operation;
    if (op.kind === 'restore-snapshot') return this.#restore(op, options);
    try {
      const { outcome, tail } = applier.applyNowSync(op);
      if ('error' in outcome) return Promise.reject(outcome.error as Error);
      return tail().then(() => outcome.value);
    } catch (error) {
      return Promise.reject(error as Error);
    }
  }

  /** A restore reads its kept archive copy; nobody else will, so the copy goes once the restore ended. */
  async #restore(op: Extract<Operation, { kind: 'restore-snapshot' }>, options?: SubmitOptions): Promise<unknown> {
    try {
      return await this.#options.applier.applyNow(op, options);
    } finally {
      await this.#options.snapshots?.forgetKept(op.archive).catch(() => {});
    }
  }

  /**
   * Deletes the archive copies of restores a crash cut short (a restore resumes from its staging folder, never from
   * its copy): called once when the node starts.
   */
  async forgetLeftovers(): Promise<number> {
    return (await this.#options.snapshots?.forgetAllKept()) ?? 0;
  }

  catchUp(): Promise<void> {
    return Promise.resolve();
  }

  position(): null {
    return null;
  }

  staleness(): null {
    return null;
  }

  startingUp(): undefined {
    return undefined;
  }

  /** Nothing to name: the embedded node answers every request once, as it comes. */
  idempotent(): <R>(work: () => R) => R {
    return (work) => work();
  }
}
