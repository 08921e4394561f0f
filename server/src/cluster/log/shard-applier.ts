import type { OperationApplier } from '../../engine/operations/operation-applier.js';
import { decodeOperation, type Operation } from '../../engine/operations/operation.js';
import { directoryShard, homeOf } from '../../engine/operations/operation-shard.js';
import type { ClusterLogger } from '../start-retries.js';
import type { Outcomes } from './outcomes.js';
import type { Placement } from './placement.js';
import { afterHeader } from './publisher.js';
import type { Shard, Shards } from './shards.js';

export interface ShardApplierOptions {
  readonly applier: OperationApplier;
  readonly logger: ClusterLogger;
  readonly shards: Shards;
  readonly placement: Placement;
  readonly outcomes: Outcomes;
  /** Aborted when the log closes: an operation waiting for the directory shard is then not applied. */
  readonly closing: AbortSignal;
}

/** Who hears of each operation this node applies (see NatsLog.onApplied). */
export type AppliedListener = (shard: number, seq: number, op: Operation) => void;

/**
 * Applies the operations stored in a shard stream, one at a time and in order, whether its consumer delivered them
 * or they were read from the stream's leader, through the engine's OperationApplier; and keeps the books of what was
 * applied: each shard's applied sequence or halt, the tenants' shards, the outcomes, the waits and the listeners.
 *
 * @example
 *   const applied = await applier.inTurn(shard, () => applier.applyStored(shard, seq, headers, data));
 *   // false: not applied (the shard is halted, or the log closes)
 */
export class ShardApplier {
  readonly #options: ShardApplierOptions;
  readonly #listeners: AppliedListener[] = [];

  constructor(options: ShardApplierOptions) {
    this.#options = options;
  }

  /** Calls `listener` after each operation this node applies from now on, in log order. */
  onApplied(listener: AppliedListener): void {
    this.#listeners.push(listener);
  }

  /** Runs `work` once the shard's previous operation is applied: the consumer and the leader reads take turns. */
  inTurn<T>(shard: Shard, work: () => Promise<T>): Promise<T> {
    const run = shard.turn.then(work);
    shard.turn = run.catch(() => undefined);
    return run;
  }

  /**
   * Applies the operation stored at `seq` of `shard`, the next this node applies, once the directory holds what it
   * was decided on (the ordering rule across shards, operation-shard.ts). False when it was not applied: it failed
   * here (the shard is halted), or the log is closing.
   */
  async applyStored(
    shard: Shard,
    seq: number,
    stored: { get(name: string): string } | undefined,
    data: Uint8Array,
  ): Promise<boolean> {
    const after = Number(stored?.get(afterHeader) || 0);
    const directory = this.#options.shards.get(directoryShard);
    if (shard !== directory && after > directory.applied) {
      shard.waitingFor = after;
      const reached = await this.#options.shards.reached(directory, after, this.#options.closing);
      shard.waitingFor = null;
      if (!reached) return false;
    }
    shard.applying = true;
    try {
      return await this.#apply(shard, seq, decodeOperation(data));
    } finally {
      shard.applying = false;
    }
  }

  /**
   * The log was truncated past this node (it counted as gone, see CLUSTER_NODE_GONE_S): what it misses is only in a
   * snapshot now, the shard starting at `first`. It stops rather than skip operations; restarted, it restores the
   * latest snapshot.
   */
  truncatedPast(shard: Shard, first: number): void {
    const reason = `the log was truncated past this node: it applied ${shard.applied} of shard ${shard.index} and that shard now starts at ${first}; restart the node to restore the latest cluster snapshot`;
    if (shard.halted?.reason !== reason) this.#options.logger.error({ applied: shard.applied }, reason);
    shard.halted = { shard: shard.index, seq: shard.applied + 1, reason };
  }

  /** Applies one operation of a shard; false (and the shard halted) when it failed for a reason of this node's. */
  async #apply(shard: Shard, seq: number, op: Operation): Promise<boolean> {
    const { applier, logger, outcomes } = this.#options;
    let applied;
    try {
      await applier.prepare(shard.index, seq, op);
      applied = applier.apply(shard.index, seq, op);
    } catch (error) {
      const reason = (error as Error).message;
      if (shard.halted?.seq !== seq || shard.halted.reason !== reason) {
        logger.error(
          { err: error, shard: shard.index, seq, operation: op.kind, id: op.id },
          'cluster mode: an operation of the log failed on this node only; it stops here and tries again',
        );
      }
      shard.halted = { shard: shard.index, seq, reason };
      return false;
    }
    shard.halted = null;
    shard.applied = Math.max(shard.applied, seq);
    // Every node learns where a tenant's data lives from the operations it applies (for X-GoDB-Seq).
    const home = homeOf(op);
    if ('tenantId' in home && shard.index !== directoryShard) this.#options.placement.learn(home.tenantId, shard.index);
    if (applied) {
      for (const listener of this.#listeners) listener(shard.index, seq, op);
      // Kept for every node's operations (a request retried with its Idempotency-Key may reach another node), and
      // at once: a duplicate acknowledged while the tail runs finds it.
      outcomes.keep(op.id, applied.outcome);
      await applied
        .tail()
        .catch((error: unknown) =>
          logger.error({ err: error, seq }, 'cluster mode: the work after an operation failed'),
        );
      outcomes.resolve(op.id, applied.outcome);
    }
    this.#options.shards.released(shard);
    return true;
  }
}
