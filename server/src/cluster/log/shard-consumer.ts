import { setImmediate as nextTurn } from 'node:timers/promises';
import { DeliverPolicy, type JetStreamClient } from '@nats-io/jetstream';
import type { ClusterLogger } from '../start-retries.js';
import { consumeUntilClosed } from './consume-until-closed.js';
import type { ShardApplier } from './shard-applier.js';
import { maxOperationBytes } from './shard-streams.js';
import type { Shard, Shards } from './shards.js';

/** How long one pull of the log consumer waits for messages (heartbeats at half of it). */
const consumeExpiresMs = 5_000;
/**
 * What one shard's consumer buffers at most: 16 MiB of operations (twice the largest, so that one always fits), and
 * the client's 100 messages besides (it sets that count itself with a byte limit; giving both is refused). Counted
 * in messages alone, a node catching up on 16 shards of 8 MiB imports could hold 12.8 GB it has not applied yet.
 */
const consumeMaxBytes = 2 * maxOperationBytes;

export interface ShardConsumersOptions {
  readonly js: JetStreamClient;
  readonly shards: Shards;
  readonly applier: ShardApplier;
  readonly logger: ClusterLogger;
  /** Aborted when the log closes: the loops then end. */
  readonly closing: AbortSignal;
}

/**
 * One ordered consumer per shard stream, from the sequence this node's store recorded for that shard, each applying
 * what it delivers through the ShardApplier, for as long as the log runs.
 *
 * @example
 *   const consumers = new ShardConsumers({ js, shards, applier, logger, closing });
 *   consumers.start(); … consumers.stop(); await consumers.ended();
 */
export class ShardConsumers {
  readonly #options: ShardConsumersOptions;

  constructor(options: ShardConsumersOptions) {
    this.#options = options;
  }

  /**
   * Applies every shard in order from the next sequence this node has not applied, for as long as it runs. A
   * consumer that stops (its NATS server died, the stream was electing a leader) is made again from the next
   * unapplied sequence: applying an operation twice is impossible (the store records each shard's applied sequence),
   * and skipping one is too (each new consumer starts right after it).
   */
  start(): void {
    const { closing, logger } = this.#options;
    for (const shard of this.#options.shards.all) {
      shard.loop = consumeUntilClosed(
        closing,
        () => this.#consume(shard),
        () => Boolean(shard.halted),
        (error) => logger.error({ err: error, shard: shard.index }, 'cluster mode: a log consumer stopped'),
      );
    }
  }

  /** Stops every shard's consumer (the log closes: its loop then ends). */
  stop(): void {
    for (const shard of this.#options.shards.all) shard.messages?.stop();
  }

  /** Resolves once every shard's loop ended (whether it failed or not). */
  ended(): Promise<unknown> {
    return Promise.all(this.#options.shards.all.map((shard) => shard.loop.catch(() => undefined)));
  }

  async #consume(shard: Shard): Promise<void> {
    const { js, applier, closing } = this.#options;
    const consumer = await js.consumers.get(shard.stream, {
      deliver_policy: DeliverPolicy.StartSequence,
      opt_start_seq: shard.applied + 1,
    });
    // Pulls expire every 5 s rather than 30, so missed heartbeats (every 2.5 s) show a dead server in seconds.
    const messages = await consumer.consume({ expires: consumeExpiresMs, max_bytes: consumeMaxBytes });
    shard.messages = messages;
    shard.delivered = shard.applied;
    if (closing.aborted) messages.stop();
    void (async () => {
      for await (const status of messages.status()) {
        // Two heartbeats missed: this consumer is not being fed; stop it, and start() makes a new one.
        if (status.type === 'heartbeats_missed' && status.count >= 2) messages.stop();
      }
    })().catch(() => undefined);
    for await (const message of messages) {
      if (closing.aborted) return;
      shard.known = Math.max(shard.known, message.seq + message.info.pending);
      shard.delivered = Math.max(shard.delivered, message.seq);
      const next = await applier.inTurn(shard, async () => {
        if (message.seq <= shard.applied) return true;
        if (message.seq > shard.applied + 1) {
          applier.truncatedPast(shard, message.seq);
          return false;
        }
        return applier.applyStored(shard, message.seq, message.headers, message.data);
      });
      if (!next) {
        // Never past an operation this node could not apply: the consumer stops, and start() makes a new one from
        // that same operation after a pause, until it applies (the disk has room again).
        messages.stop();
        return;
      }
      // The event loop's turn between two operations. Messages the client buffered come out of this loop as
      // microtasks, and each apply is synchronous (a 500-document import operation takes 100-200 ms): without a
      // turn, a node replaying a backlog read no socket and ran no timer until its buffer ran dry, so its own
      // JetStream requests (opening the KV buckets and object stores at start, lease renewals, progress reports)
      // timed out with their answers unread, and /healthz did not answer (bench:cluster's catch-up, issue #17).
      await nextTurn();
    }
  }
}
