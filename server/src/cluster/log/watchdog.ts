import { setImmediate as nextTurn } from 'node:timers/promises';
import type { ClusterLogger } from '../start-retries.js';
import type { ShardApplier } from './shard-applier.js';
import type { ShardStreams } from './shard-streams.js';
import type { Shard, Shards } from './shards.js';

/** How often a node checks that its consumer keeps up with the stream. */
export const watchdogMs = 2_500;
/** How many operations a shard whose consumer is silent reads from its stream's leader per watchdog check. */
const leaderReadsPerCheck = 1_000;

export interface WatchdogOptions {
  readonly shards: Shards;
  readonly streams: ShardStreams;
  readonly applier: ShardApplier;
  readonly logger: ClusterLogger;
  /** Aborted when the log closes: checks and leader reads then stop. */
  readonly closing: AbortSignal;
}

/**
 * The periodic check (every {@link watchdogMs}) that each shard's consumer keeps up with its stream: it reads each
 * stream's bounds from its leader (which confirms the shard, see Position.staleness), stops a consumer that stays
 * silent while the stream is ahead (ShardConsumers makes a new one), and meanwhile reads what the consumer does not
 * deliver from the stream's leader.
 *
 * @example
 *   const watchdog = new Watchdog({ shards, streams, applier, logger, closing });
 *   watchdog.start(); … watchdog.stop();
 */
export class Watchdog {
  readonly #options: WatchdogOptions;
  #timer: ReturnType<typeof setInterval> | null = null;
  #busy = false;

  constructor(options: WatchdogOptions) {
    this.#options = options;
  }

  /** Starts the checks; they do not keep the process alive. */
  start(): void {
    this.#timer = setInterval(() => void this.#watch(), watchdogMs);
    this.#timer.unref();
  }

  /** Stops the checks. */
  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
  }

  /**
   * The client's own recovery does not cover every failure (a consumer whose server died while the stream elected a
   * leader has been seen to stay silent without reporting missed heartbeats): when a shard's stream holds more than
   * its consumer delivered, and the consumer delivered nothing for two checks in a row (while no operation of the
   * shard was being applied), it is stopped, and ShardConsumers makes a new one. Meanwhile #readFromLeader applies
   * what the consumer does not deliver.
   */
  async #watch(): Promise<void> {
    const { shards, streams, applier, logger, closing } = this.#options;
    if (closing.aborted) return;
    // A shard this node knows to be ahead of it (a write it published, a pending count) that applied nothing since
    // the last check is read from its leader: decided without asking JetStream, which may take a while to answer now.
    for (const shard of shards.all) {
      const behind = shard.applied < shard.known && shard.applied === shard.watched.seen;
      shard.watched.seen = shard.applied;
      // Not while an operation is being applied (that is progress), halted (the consumer retries it), or waiting for
      // the directory shard (what it waits for is read there).
      const busy = shard.applying || shard.halted !== null || shard.waitingFor !== null || shard.reading;
      if (behind && !busy) void this.#readFromLeader(shard);
    }
    if (this.#busy) return;
    this.#busy = true;
    try {
      // Each stream from its own leader, so that a shard whose leader answers is checked while another's elects one
      // (listing every stream needs the meta leader, which a NATS server's death may take away for a while).
      const bounds = await Promise.all(shards.all.map((shard) => streams.boundsOf(shard.index).catch(() => null)));
      for (const shard of shards.all) {
        const { first, last } = bounds[shard.index] ?? {};
        if (last === undefined || first === undefined) continue;
        shard.known = Math.max(shard.known, last);
        // Truncated past this node with nothing after the purge: no message comes to show it (its consumer waits
        // on an empty stream, and a halt on a failing operation kept that reason), so the bounds show it. It was seen
        // as a halt minutes after the purge: when the shard's next operation happened to be written.
        if (first > shard.applied + 1) {
          applier.truncatedPast(shard, first);
          continue;
        }
        // A halted shard is behind on purpose (the consumer retries its operation), one waiting for the directory
        // shard is too, and one applying a long operation delivers nothing meanwhile: a new consumer would change
        // nothing. Counted in what the consumer delivered, not what was applied: reads from the leader apply too.
        const stalled = shard.delivered < last && shard.delivered === shard.watched.delivered;
        const excused = shard.halted !== null || shard.waitingFor !== null || shard.applying;
        shard.watched.stalls = stalled && !excused ? shard.watched.stalls + 1 : 0;
        shard.watched.delivered = shard.delivered;
        if (shard.watched.stalls >= 2) {
          shard.watched.stalls = 0;
          logger.error(
            { shard: shard.index, applied: shard.applied, delivered: shard.delivered, last },
            'cluster mode: a log consumer delivered nothing; making a new one',
          );
          shard.messages?.stop();
        }
      }
    } catch {
      // NATS cannot answer now (no majority): nothing to compare; the next check tries again.
    } finally {
      this.#busy = false;
    }
  }

  /**
   * While a shard's consumer delivers nothing (its NATS server died, and JetStream cannot make a new one until the
   * meta leader answers, which the same death may have taken away: its election took over 20 s on a loaded
   * machine), what this node knows the stream holds past it is read one operation at a time from the stream's own
   * leader, which answers as soon as the stream has one (writes are being acknowledged). Without it, a write taken
   * by this node was stored but not applied here, and answered 503 CLUSTER_LAGGING, until a consumer could be made
   * again (issue #16). At most {@link leaderReadsPerCheck} operations per check: a consumer is much faster for a
   * backlog, and the watchdog stops a silent one (see #watch).
   */
  async #readFromLeader(shard: Shard): Promise<void> {
    const { applier, closing } = this.#options;
    const jsm = this.#options.streams.manager;
    if (!jsm) return;
    shard.reading = true;
    const delivered = shard.delivered;
    try {
      for (let read = 0; read < leaderReadsPerCheck && shard.applied < shard.known; read += 1) {
        // The consumer delivers again: the rest is its.
        if (closing.aborted || shard.delivered > delivered) return;
        const seq = shard.applied + 1;
        const stored = await jsm.streams.getMessage(shard.stream, { seq });
        // Gone: the shard was truncated past this node (the watchdog sees to it from the stream's bounds).
        if (!stored) return;
        const next = await applier.inTurn(shard, async () => {
          if (closing.aborted) return false;
          // The consumer applied it meanwhile: the next one.
          return shard.applied >= seq || applier.applyStored(shard, seq, stored.header, stored.data);
        });
        if (!next) {
          // Failed here: the consumer (silent or not) stops, and ShardConsumers retries the operation after a pause.
          if (shard.halted) shard.messages?.stop();
          return;
        }
        await nextTurn();
      }
    } catch {
      // The stream has no leader yet: the next check tries again.
    } finally {
      shard.reading = false;
    }
  }
}
