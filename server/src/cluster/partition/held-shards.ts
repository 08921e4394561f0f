import { setImmediate as nextTurn } from 'node:timers/promises';
import { DeliverPolicy, type ConsumerMessages, type JetStreamClient } from '@nats-io/jetstream';
import type { OperationApplier } from '../../engine/operations/operation-applier.js';
import { decodeOperation } from '../../engine/operations/operation.js';
import { directoryShard } from '../../engine/operations/operation-shard.js';
import type { Outcomes } from '../log/outcomes.js';
import { afterHeader } from '../log/publisher.js';
import { consumeUntilClosed } from '../log/consume-until-closed.js';
import type { Shards } from '../log/shards.js';
import type { ClusterLogger } from '../start-retries.js';
import { collectionStream } from './collection-stream.js';

/** The header naming the tenant shard and the sequence of it a collection-shard operation was decided on. */
export const afterTenantHeader = 'GoDB-After-Tenant';

export interface HeldShardsOptions {
  readonly js: JetStreamClient;
  readonly applier: OperationApplier;
  /** The log's shard streams: an operation waits for the directory and tenant sequences it was decided on. */
  readonly shards: Shards;
  readonly outcomes: Outcomes;
  readonly logger: ClusterLogger;
  readonly closing: AbortSignal;
}

/** One collection shard this node holds, as it applies it. */
interface Held {
  readonly subject: string;
  applied: number;
  /** The first sequence of the collection that now owns the subject (PlacementRecord.startSeq). */
  floor: number;
  messages: ConsumerMessages | null;
  halted: string | null;
  /** Ends this shard's consumer alone (it is released), or with the node. */
  readonly ending: AbortController;
  readonly ended: AbortSignal;
  loop: Promise<void>;
  waiters: { seq: number; resolve: () => void }[];
}

/**
 * The collection shards this node holds (decision 0062): one ordered consumer per shard subject of the stream
 * `godb-collections`, from the sequence the store recorded for that subject, applying each operation once the
 * directory and the tenant's shard reached what it was decided on (the creation of its collection among them).
 * A node applies nothing of the shards it does not hold.
 *
 * @example
 *   const held = new HeldShards({ js, applier, shards, outcomes, logger, closing });
 *   held.hold('godb.cshard.dA.3'); … held.stop(); await held.ended();
 */
export class HeldShards {
  readonly #options: HeldShardsOptions;
  readonly #held = new Map<string, Held>();

  constructor(options: HeldShardsOptions) {
    this.#options = options;
  }

  /**
   * Starts applying `subject` here, from the sequence after the one the store recorded, and from `from` at least
   * (the collection's first sequence: see PlacementRecord.startSeq); when it is applied already, only raises that.
   */
  hold(subject: string, from = 1): void {
    const known = this.#held.get(subject);
    // Held already, as a collection of that name deleted and created again: its earlier writes still in the
    // consumer's way are skipped, never applied to the new collection.
    if (known) return void (known.floor = Math.max(known.floor, from));
    const ending = new AbortController();
    const held: Held = {
      subject,
      applied: Math.max(this.#options.applier.appliedOfSubject(subject), from - 1),
      floor: from,
      messages: null,
      halted: null,
      ending,
      ended: AbortSignal.any([ending.signal, this.#options.closing]),
      loop: Promise.resolve(),
      waiters: [],
    };
    this.#held.set(subject, held);
    held.loop = this.#run(held);
  }

  /**
   * Stops applying `subject` here and waits until its consumer ended (an operation being applied finishes first);
   * the caller then removes what the store holds of it.
   */
  async release(subject: string): Promise<void> {
    const held = this.#held.get(subject);
    if (!held) return;
    this.#held.delete(subject);
    held.ending.abort();
    held.messages?.stop();
    await held.loop.catch(() => undefined);
  }

  /** The subjects applied here. */
  subjects(): string[] {
    return [...this.#held.keys()];
  }

  /** True when this node applies `subject`. */
  holds(subject: string): boolean {
    return this.#held.has(subject);
  }

  /** The last sequence applied here of `subject` (0: none, or not held). */
  applied(subject: string): number {
    return this.#held.get(subject)?.applied ?? 0;
  }

  /** Resolves once `subject` reached `seq` here, or false when `signal` ends the wait first. */
  reached(subject: string, seq: number, signal: AbortSignal): Promise<boolean> {
    const held = this.#held.get(subject);
    if (!held) return Promise.resolve(false);
    if (held.applied >= seq) return Promise.resolve(true);
    return new Promise((resolve) => {
      const waiter = { seq, resolve: () => resolve(true) };
      held.waiters.push(waiter);
      signal.addEventListener(
        'abort',
        () => {
          held.waiters = held.waiters.filter((w) => w !== waiter);
          resolve(false);
        },
        { once: true },
      );
    });
  }

  stop(): void {
    for (const held of this.#held.values()) held.messages?.stop();
  }

  ended(): Promise<unknown> {
    return Promise.all([...this.#held.values()].map((held) => held.loop.catch(() => undefined)));
  }

  #run(held: Held): Promise<void> {
    const { logger } = this.#options;
    return consumeUntilClosed(
      held.ended,
      () => this.#consume(held),
      () => Boolean(held.halted),
      (error) =>
        logger.error({ err: error, subject: held.subject }, 'cluster mode: a collection shard consumer stopped'),
    );
  }

  async #consume(held: Held): Promise<void> {
    const { js } = this.#options;
    const closing = held.ended;
    const consumer = await js.consumers.get(collectionStream, {
      // One subject, as a string: the client sends it as filter_subject, which NATS 2.9 takes too.
      filter_subjects: held.subject,
      deliver_policy: DeliverPolicy.StartSequence,
      opt_start_seq: held.applied + 1,
    });
    const messages = await consumer.consume({ expires: 5_000 });
    held.messages = messages;
    if (closing.aborted) messages.stop();
    void (async () => {
      for await (const status of messages.status()) {
        if (status.type === 'heartbeats_missed' && status.count >= 2) messages.stop();
      }
    })().catch(() => undefined);
    for await (const message of messages) {
      if (closing.aborted) return;
      if (message.seq <= held.applied) continue;
      if (message.seq < held.floor) {
        held.applied = message.seq;
        continue;
      }
      if (!(await this.#apply(held, message.seq, message.headers, message.data))) {
        messages.stop();
        return;
      }
      await nextTurn();
    }
  }

  /** Applies one stored operation of a held shard, in order; false when it failed here (it is tried again). */
  async #apply(
    held: Held,
    seq: number,
    stored: { get(name: string): string } | undefined,
    data: Uint8Array,
  ): Promise<boolean> {
    const { shards, applier, outcomes, logger } = this.#options;
    const closing = held.ended;
    const directory = Number(stored?.get(afterHeader) || 0);
    const [tenantShard, tenantSeq] = (stored?.get(afterTenantHeader) || '0:0').split(':').map(Number);
    if (!(await shards.reached(shards.get(directoryShard), directory, closing))) return false;
    if (!(await shards.reached(shards.get(tenantShard ?? 0), tenantSeq ?? 0, closing))) return false;
    const op = decodeOperation(data);
    let applied;
    try {
      applied = applier.applyOnSubject(held.subject, seq, op);
    } catch (error) {
      const reason = (error as Error).message;
      if (held.halted !== reason) {
        logger.error(
          { err: error, subject: held.subject, seq, id: op.id },
          'cluster mode: an operation of a collection shard failed on this node only; it stops here and tries again',
        );
      }
      held.halted = reason;
      return false;
    }
    held.halted = null;
    held.applied = Math.max(held.applied, seq);
    if (applied) {
      outcomes.keep(op.id, applied.outcome);
      await applied
        .tail()
        .catch((error: unknown) =>
          logger.error({ err: error, seq }, 'cluster mode: the work after an operation failed'),
        );
      outcomes.resolve(op.id, applied.outcome);
    }
    held.waiters = held.waiters.filter((w) => (w.seq <= held.applied ? (w.resolve(), false) : true));
    return true;
  }
}
