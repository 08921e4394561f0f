import type { ConsumerMessages } from '@nats-io/jetstream';
import { shardStream, shardSubject } from '../../engine/operations/operation-shard.js';

/** Why this node stopped applying a shard of the log: the operation it could not apply, and the failure. */
export interface Halt {
  readonly shard: number;
  readonly seq: number;
  readonly reason: string;
}

/** A wait for a sequence to be applied (of one shard, or the sum over every shard). */
interface Waiter {
  seq: number;
  resolve: () => void;
}

/** One shard stream as this node applies it. */
export interface Shard {
  readonly index: number;
  readonly stream: string;
  readonly subject: string;
  applied: number;
  /** The highest sequence of the stream this node knows of (from messages' pending counts and acknowledgements). */
  known: number;
  messages: ConsumerMessages | null;
  /** Checks that the consumer makes progress while the stream is ahead (see Watchdog). */
  watched: { delivered: number; stalls: number; seen: number };
  /** The last sequence the consumer delivered (a new one starts at `applied`): how the watchdog tells a silent one. */
  delivered: number;
  /** Set while operations are read from the stream's leader (see Watchdog). */
  reading: boolean;
  /** Set while an operation of this shard is being applied (its prepare may take long: a snapshot's download). */
  applying: boolean;
  /** The last operation applied or being applied: one at a time, from the consumer or from the leader. */
  turn: Promise<unknown>;
  /** Set while an operation failed here for a local reason: the consumer stopped before it, and retries. */
  halted: Halt | null;
  /** Set while the next operation waits for the directory shard to reach the sequence it was decided on. */
  waitingFor: number | null;
  waiters: Waiter[];
  loop: Promise<void>;
  /** When (performance.now()) JetStream last confirmed this shard's last sequence with a majority behind it. */
  confirmedAt: number;
  /** Why the last attempt to confirm it failed (null: it succeeded); cleared by the next confirmation. */
  unconfirmed: string | null;
}

/** One shard's place, for /readyz and /metrics. */
export interface ShardStatus {
  readonly shard: number;
  readonly applied: number;
  readonly lag: number;
  /** Set while its next operation waits for the directory shard to reach this sequence (see operation-shard.ts). */
  readonly waitingFor?: number;
}

/** A position in the log: the sequence applied of each shard it names. */
export type ShardSeqs = Readonly<Record<number, number>>;

/**
 * This node's state of every shard stream of the log (index = shard), shared by the parts of the log, and the waits
 * for what it applied.
 *
 * @example
 *   const shards = new Shards(16, (i) => applier.applied(i));
 *   await shards.reached(shards.get(0), 42); // true once shard 0's sequence 42 is applied here
 */
export class Shards {
  readonly all: readonly Shard[];
  #totalWaiters: Waiter[] = [];

  constructor(count: number, appliedOf: (shard: number) => number) {
    this.all = Array.from({ length: count }, (_, index) => ({
      index,
      stream: shardStream(index),
      subject: shardSubject(index),
      applied: appliedOf(index),
      known: 0,
      messages: null,
      watched: { delivered: -1, stalls: 0, seen: -1 },
      delivered: appliedOf(index),
      reading: false,
      applying: false,
      turn: Promise.resolve(),
      halted: null,
      waitingFor: null,
      waiters: [],
      loop: Promise.resolve(),
      confirmedAt: performance.now(),
      unconfirmed: null,
    }));
  }

  /** How many shard streams the log has. */
  get count(): number {
    return this.all.length;
  }

  /** The operations this node applied, over every shard (the sum of each shard's last applied sequence). */
  get applied(): number {
    return this.all.reduce((sum, shard) => sum + shard.applied, 0);
  }

  /** Shard `i` (a number checked against the shard count where it comes from a request or the shard map). */
  get(i: number): Shard {
    const shard = this.all[i];
    if (!shard) throw new Error(`shard ${i} is not one of this log's ${this.all.length}`);
    return shard;
  }

  /** True once `shard` reached `seq`; false when `signal` ends the wait first. */
  reached(shard: Shard, seq: number, signal?: AbortSignal): Promise<boolean> {
    if (shard.applied >= seq) return Promise.resolve(true);
    // An aborted signal fires no more 'abort' events: answer now rather than wait for ever.
    if (signal?.aborted) return Promise.resolve(false);
    return new Promise<boolean>((resolve) => {
      const aborted = () => {
        shard.waiters = shard.waiters.filter((w) => w !== waiter);
        resolve(false);
      };
      // Removed once reached: every wait for the directory shard adds one to the log's closing signal.
      const waiter = {
        seq,
        resolve: () => {
          signal?.removeEventListener('abort', aborted);
          resolve(true);
        },
      };
      shard.waiters.push(waiter);
      signal?.addEventListener('abort', aborted, { once: true });
    });
  }

  /** Resolves once this node applied `total` operations over every shard (the sum `applied` reports). */
  waitFor(total: number): Promise<void> {
    if (this.applied >= total) return Promise.resolve();
    return new Promise((resolve) => this.#totalWaiters.push({ seq: total, resolve }));
  }

  /** Resolves the waits that `shard`'s last applied operation reached, its own and those for a total. */
  released(shard: Shard): void {
    shard.waiters = release(shard.waiters, shard.applied);
    this.#totalWaiters = release(this.#totalWaiters, this.applied);
  }
}

/** Resolves the waiters whose sequence is reached; answers those left. */
function release(waiters: Waiter[], applied: number): Waiter[] {
  if (!waiters.some((w) => w.seq <= applied)) return waiters;
  for (const waiter of waiters) if (waiter.seq <= applied) waiter.resolve();
  return waiters.filter((w) => w.seq > applied);
}
