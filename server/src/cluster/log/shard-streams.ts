import { setTimeout as sleep } from 'node:timers/promises';
import { jetstreamManager, StorageType, type JetStreamManager, type StreamInfo } from '@nats-io/jetstream';
import { nanos, type NatsConnection } from '@nats-io/transport-node';
import { ConfigError } from '../../config/env.js';
import { shardStream } from '../../engine/operations/operation-shard.js';
import type { Shard, Shards } from './shards.js';

/** The one stream of GoDB before the shards: a data folder that applied it cannot join a sharded cluster. */
export const legacyStream = 'GODB_OPS';
/** Every shard stream's subjects (godb.ops.00 …), to list the shard streams in one request. */
const shardSubjects = 'godb.ops.*';
/** The largest operation a stream takes. */
export const maxOperationBytes = 8 * 1024 * 1024;
/** JetStream drops a second publish of the same message id within this window (its default). */
const duplicateWindowMs = 120_000;
/** The pause between two attempts of a JetStream request that failed (a publish, making a stream or a consumer). */
export const retryPauseMs = 250;
/** A replica its stream's leader has not heard from for this long counts as out of its reach (raft beats each 1 s). */
const replicaSilentNs = 4e9;

/**
 * The shard streams on JetStream (`godb-shard-00` …, file-backed, replicated on up to three NATS servers): made at
 * the start, their bounds read (each answer confirms its shard, or not: see Position.staleness) and truncated.
 *
 * @example
 *   const streams = new ShardStreams(nc, shards, 3);
 *   streams.opened(jsm);
 *   const lasts = await streams.ensure(jsm); // each shard stream's last sequence
 */
export class ShardStreams {
  readonly #nc: NatsConnection;
  readonly #shards: Shards;
  readonly #replicas: number;
  #jsm: JetStreamManager | null = null;

  constructor(nc: NatsConnection, shards: Shards, replicas: number) {
    this.#nc = nc;
    this.#shards = shards;
    this.#replicas = replicas;
  }

  /** The JetStream manager the log opened with, or null before JetStream answered at the start. */
  get manager(): JetStreamManager | null {
    return this.#jsm;
  }

  /** Records the JetStream manager JetStream answered with at the start. */
  opened(jsm: JetStreamManager): void {
    this.#jsm = jsm;
  }

  /**
   * Makes sure every shard stream exists and has a leader; answers their last sequences. One request lists the
   * streams that exist; the missing ones are made one after the other (sixteen requests at once timed out on a loaded
   * three-server cluster), and their leaders, elected meanwhile, are awaited together.
   */
  async ensure(jsm: JetStreamManager): Promise<number[]> {
    const existing = new Map<string, StreamInfo>();
    for await (const info of jsm.streams.list(shardSubjects)) existing.set(info.config.name, info);
    for (const shard of this.#shards.all) {
      if (existing.has(shard.stream)) continue;
      // Every node may make a missing stream at once; making it with the same settings is idempotent, and so is a
      // retry after a request that timed out (it may have been made all the same).
      for (let attempt = 1; ; attempt += 1) {
        try {
          existing.set(
            shard.stream,
            await jsm.streams.add({
              name: shard.stream,
              subjects: [shard.subject],
              storage: StorageType.File,
              num_replicas: this.#replicas,
              duplicate_window: nanos(duplicateWindowMs),
              max_msg_size: maxOperationBytes,
            }),
          );
          break;
        } catch (error) {
          if (attempt >= 5) throw error;
          await sleep(retryPauseMs);
        }
      }
    }
    return Promise.all(
      this.#shards.all.map(async (shard) => {
        let current = existing.get(shard.stream) ?? (await jsm.streams.info(shard.stream));
        // A stream just made elects its leader first; consumers made before that time out. A bound, not a timing.
        for (let attempt = 0; current.cluster && !current.cluster.leader && attempt < 100; attempt += 1) {
          await sleep(retryPauseMs);
          const before = current;
          current = await jsm.streams.info(shard.stream).catch(() => before);
        }
        const last = current.state.last_seq;
        if (shard.applied > last) {
          throw new ConfigError(
            `Cluster mode: this node applied shard ${shard.index} of the log up to ${shard.applied}, but stream ${shard.stream} on NATS_URL ends at ${last}: it belongs to another cluster, or NATS lost its data. Point NATS_URL at this node's cluster, or start the node on an empty DATA_DIR.`,
          );
        }
        return last;
      }),
    );
  }

  /** One shard stream's first and last sequences now, from its stream info (which confirms the shard, or not). */
  async boundsOf(index: number): Promise<{ first: number; last: number }> {
    const shard = this.#shards.get(index);
    try {
      const jsm = this.#jsm ?? (await jetstreamManager(this.#nc));
      const info = await jsm.streams.info(shardStream(index));
      confirm(shard, info);
      return { first: info.state.first_seq, last: info.state.last_seq };
    } catch (error) {
      shard.unconfirmed = `its leader did not answer: ${(error as Error).message}`;
      throw error;
    }
  }

  /** Every shard stream's first and last sequences now (index = shard; the first moves up when a shard is truncated). */
  async bounds(): Promise<{ first: number; last: number }[]> {
    const jsm = this.#jsm ?? (await jetstreamManager(this.#nc));
    const found = new Map<string, { first: number; last: number }>();
    for await (const info of jsm.streams.list(shardSubjects)) {
      found.set(info.config.name, { first: info.state.first_seq, last: info.state.last_seq });
    }
    return this.#shards.all.map((shard) => {
      const bounds = found.get(shard.stream);
      if (!bounds) throw new Error(`stream ${shard.stream} is missing`);
      return bounds;
    });
  }

  /**
   * Every shard stream as JetStream describes it now, in one request: its bounds, the NATS server leading it and
   * the servers holding it (the leader first), for GET /api/v1/cluster.
   */
  async describe(): Promise<
    { shard: number; stream: string; first: number; last: number; leader: string; replicas: string[] }[]
  > {
    const jsm = this.#jsm ?? (await jetstreamManager(this.#nc));
    const found = new Map<string, StreamInfo>();
    for await (const info of jsm.streams.list(shardSubjects)) found.set(info.config.name, info);
    return this.#shards.all.map((shard) => {
      const info = found.get(shard.stream);
      if (!info) throw new Error(`stream ${shard.stream} is missing`);
      const leader = info.cluster?.leader ?? '';
      const others = (info.cluster?.replicas ?? []).map((r) => r.name);
      return {
        shard: shard.index,
        stream: shard.stream,
        first: info.state.first_seq,
        last: info.state.last_seq,
        leader,
        replicas: leader ? [leader, ...others] : others,
      };
    });
  }

  /**
   * Truncates shard `shard`: removes every operation below `seq` (JetStream purge with `seq`, which keeps `seq` and
   * after). Answers how many were removed.
   */
  async truncateBefore(shard: number, seq: number): Promise<number> {
    const jsm = this.#jsm ?? (await jetstreamManager(this.#nc));
    return (await jsm.streams.purge(shardStream(shard), { seq })).purged;
  }
}

/**
 * Records what one stream info said of its shard: confirmed when its leader reaches a majority of its replicas (a
 * leader cut off from the others keeps answering for a while before it steps down, with what it last had).
 */
function confirm(shard: Shard, info: StreamInfo): void {
  const cluster = info.cluster;
  if (cluster && !cluster.leader) {
    shard.unconfirmed = 'the stream has no leader';
    return;
  }
  const replicas = cluster?.replicas ?? [];
  const reached = 1 + replicas.filter((r) => !r.offline && r.active < replicaSilentNs).length;
  if (reached * 2 <= replicas.length + 1) {
    shard.unconfirmed = `its leader ${cluster?.leader ?? ''} reaches ${reached} of its ${replicas.length + 1} replicas, not a majority`;
    return;
  }
  shard.unconfirmed = null;
  shard.confirmedAt = performance.now();
}
