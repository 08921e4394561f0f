import { abortAfter } from './abort-after.js';
import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash, randomUUID } from 'node:crypto';
import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises';
import { createError } from '@godb/contract';
import {
  DeliverPolicy,
  jetstream,
  jetstreamManager,
  StorageType,
  type ConsumerMessages,
  type JetStreamClient,
  type JetStreamManager,
  type StreamInfo,
} from '@nats-io/jetstream';
import { Kvm, type KV } from '@nats-io/kv';
import { connect, headers, nanos, type NatsConnection } from '@nats-io/transport-node';
import { ConfigError } from '../config/env.js';
import type { Clock } from '../engine/clock.js';
import type { OperationApplier, Outcome } from '../engine/operations/operation-applier.js';
import {
  type ClusterReads,
  type Consistency,
  decodeOperation,
  encodeOperation,
  type Operation,
  type OperationBody,
  type OperationLog,
  rankedByRequest,
} from '../engine/operations/operation.js';
import {
  directoryShard,
  homeOf,
  proposedShard,
  shardStream,
  shardSubject,
} from '../engine/operations/operation-shard.js';
import { NatsServerWatch, type ServerRefusal } from './nats-server-watch.js';
import { checkNatsVersion } from './nats-version.js';
import { retryAtStart, type ClusterLogger } from './start-retries.js';

export interface NatsLogOptions {
  /** NATS client URLs (NATS_URL, split at commas). */
  readonly servers: readonly string[];
  /** This node's name (NODE_ID): operations it publishes carry it. */
  readonly nodeId: string;
  readonly applier: OperationApplier;
  /** The time an operation carries (the engine's clock). */
  readonly clock: Clock;
  /** How long a publish waits for JetStream's acknowledgement before the write answers 503 CLUSTER_UNAVAILABLE. */
  readonly publishTimeoutMs: number;
  /** How many shard streams the log has (CLUSTER_SHARDS; fixed for the cluster's life, checked at start). */
  readonly shards: number;
  /**
   * NATS_SYNC_ALWAYS: the NATS servers that join later must be 2.10+ too, else this node refuses writes while they
   * are in the cluster (see nats-server-watch.ts).
   */
  readonly syncAlways?: boolean;
  readonly logger: ClusterLogger;
}

/** The one stream of GoDB before the shards: a data folder that applied it cannot join a sharded cluster. */
export const legacyStream = 'GODB_OPS';
/** The KV bucket mapping tenant → shard (fixed on the tenant's first write), and the shard count under one key. */
export const shardsBucket = 'godb-shards';
const shardCountKey = 'shard-count';
/** Every shard stream's subjects (godb.ops.00 …), to list the shard streams in one request. */
const shardSubjects = 'godb.ops.*';
/** The header naming the directory shard's sequence an operation was decided on (see operation-shard.ts). */
const afterHeader = 'GoDB-After-Directory';
/** The largest operation a stream takes. */
const maxOperationBytes = 8 * 1024 * 1024;
/** JetStream drops a second publish of the same message id within this window (its default). */
const duplicateWindowMs = 120_000;
/** How long one pull of the log consumer waits for messages (heartbeats at half of it). */
const consumeExpiresMs = 5_000;
/**
 * What one shard's consumer buffers at most: 16 MiB of operations (twice the largest, so that one always fits), and
 * the client's 100 messages besides (it sets that count itself with a byte limit; giving both is refused). Counted
 * in messages alone, a node catching up on 16 shards of 8 MiB imports could hold 12.8 GB it has not applied yet.
 */
const consumeMaxBytes = 2 * maxOperationBytes;
/** How often a node checks that its consumer keeps up with the stream. */
const watchdogMs = 2_500;
/** How long closing lets the consumer loops end before it closes the connection under them. */
const closeGraceMs = 2_000;
/** The pause between two attempts to publish an operation that was not acknowledged. */
const retryPauseMs = 250;
/** Outcomes of operations (taken by any node) kept for a duplicate publish, a retried request, to answer with. */
const keptOutcomes = 10_000;
/** How many operations a shard whose consumer is silent reads from its stream's leader per watchdog check. */
const leaderReadsPerCheck = 1_000;
/** The pause before a node whose apply failed for a reason of its own (see #apply) tries the operation again. */
const haltedRetryMs = 2_000;
/**
 * How long a shard's last confirmation holds (its stream's leader answered reaching a majority of its replicas, or
 * acknowledged a write): four watchdog checks. Past it, with no answer since, reads depending on the shard are marked
 * stale (see staleness()); a failed answer marks them at once.
 */
const confirmedForMs = 4 * watchdogMs;
/** A replica its stream's leader has not heard from for this long counts as out of its reach (raft beats each 1 s). */
const replicaSilentNs = 4e9;

/** A request's Idempotency-Key, scoped, and how many operations the request has submitted so far. */
interface Idempotency {
  readonly scope: string;
  readonly key: string;
  submitted: number;
}

/** Why this node stopped applying a shard of the log: the operation it could not apply, and the failure. */
export interface Halt {
  readonly shard: number;
  readonly seq: number;
  readonly reason: string;
}

/** One shard stream as this node applies it. */
interface Shard {
  readonly index: number;
  readonly stream: string;
  readonly subject: string;
  applied: number;
  /** The highest sequence of the stream this node knows of (from messages' pending counts and acknowledgements). */
  known: number;
  messages: ConsumerMessages | null;
  /** Checks that the consumer makes progress while the stream is ahead (see #watch). */
  watched: { delivered: number; stalls: number; seen: number };
  /** The last sequence the consumer delivered (a new one starts at `applied`): how #watch tells a silent one. */
  delivered: number;
  /** Set while operations are read from the stream's leader (see #readFromLeader). */
  reading: boolean;
  /** Set while an operation of this shard is being applied (its prepare may take long: a snapshot's download). */
  applying: boolean;
  /** The last operation applied or being applied: one at a time, from the consumer or from the leader. */
  turn: Promise<unknown>;
  /** Set while an operation failed here for a local reason: the consumer stopped before it, and retries. */
  halted: Halt | null;
  /** Set while the next operation waits for the directory shard to reach the sequence it was decided on. */
  waitingFor: number | null;
  waiters: { seq: number; resolve: () => void }[];
  loop: Promise<void>;
  /** When (performance.now()) JetStream last confirmed this shard's last sequence with a majority behind it. */
  confirmedAt: number;
  /** Why the last attempt to confirm it failed (null: it succeeded); cleared by the next confirmation. */
  unconfirmed: string | null;
}

/**
 * Why reads answered by this node may be stale (see NatsLog.staleness), for the X-GoDB-Stale header and /readyz: the
 * node cannot confirm it holds every write a majority of the NATS servers accepted, for these shards.
 */
export interface Staleness {
  readonly reason: string;
  readonly shards: readonly number[];
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
 * The replicated log on NATS JetStream: {@link NatsLogOptions.shards} file-backed shard streams (`godb-shard-00` …,
 * replicated on up to three NATS servers). An operation is published to its home shard (see operation-shard.ts: the
 * directory on shard 0, a tenant's data on the tenant's shard, fixed in the KV bucket `godb-shards`) with its id as
 * `Nats-Msg-Id`, and every node applies every shard in order through one ordered consumer per shard, from the
 * sequence its store recorded for that shard. A write answers once JetStream acknowledged it and this node applied
 * it (read-your-writes on the node that took it).
 *
 * @example
 *   const log = await NatsLog.open({ servers, nodeId: 'a', shards: 16, applier, clock, publishTimeoutMs: 5000, logger });
 *   engine.attachLog(log); … await log.close();
 */
export class NatsLog implements OperationLog, ClusterReads {
  readonly #nc: NatsConnection;
  readonly #js: JetStreamClient;
  readonly #options: NatsLogOptions;
  readonly #shards: Shard[];
  readonly #waiting = new Map<string, ((outcome: Outcome) => void)[]>();
  readonly #outcomes = new Map<string, Outcome>();
  /** Tenant → shard, as `godb-shards` holds it (fixed for a tenant's life): read once, or learnt from applied ops. */
  readonly #tenantShards = new Map<string, number>();
  #placement: KV | null = null;
  /** The versions of the NATS servers this node learns of after its start (see nats-server-watch.ts). */
  #servers: NatsServerWatch | null = null;
  #totalWaiters: { seq: number; resolve: () => void }[] = [];
  #jsm: JetStreamManager | null = null;
  /** Since when (performance.now()) the connection has been down (the client reconnecting), or null. */
  #disconnectedAt: number | null = null;
  #watchdog: ReturnType<typeof setInterval> | null = null;
  #watchBusy = false;
  #closed = false;
  readonly #closing = new AbortController();
  /** Where this node started and what the log held then, until it serves (see startingUp() and serve()). */
  #startedAt: { from: number; target: number } | null = null;
  /** Resolves once this node applied what the log held when it started. */
  ready: Promise<void> = Promise.resolve();
  readonly #idempotency = new AsyncLocalStorage<Idempotency>();
  readonly #appliedListeners: ((shard: number, seq: number, op: Operation) => void)[] = [];

  private constructor(nc: NatsConnection, options: NatsLogOptions) {
    this.#nc = nc;
    this.#js = jetstream(nc);
    this.#options = options;
    this.#shards = Array.from({ length: options.shards }, (_, index) => ({
      index,
      stream: shardStream(index),
      subject: shardSubject(index),
      applied: options.applier.applied(index),
      known: 0,
      messages: null,
      watched: { delivered: -1, stalls: 0, seen: -1 },
      delivered: options.applier.applied(index),
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

  /**
   * Connects, makes sure the shard streams and the shard map exist and starts applying. It answers at once: the node
   * catches up with what the log holds in the background (`ready`), and its API refuses requests until then (see
   * startingUp()), while health and readiness checks are answered (a node replaying a million operations is alive,
   * not ready).
   */
  static async open(options: NatsLogOptions): Promise<NatsLog> {
    const single = options.applier.appliedSingleStream();
    if (single > 0) {
      throw new ConfigError(
        `Cluster mode: this data folder applied the single replicated stream of an earlier GoDB (${legacyStream}, up to ${single}); the log is now ${options.shards} shard streams, whose sequences it cannot continue. Start the node on an empty DATA_DIR (it restores the cluster's latest snapshot, or replays the shard streams), or start it without NATS_URL to use this data as one embedded node (ARCHITECTURE.md, "Cluster mode").`,
      );
    }
    const nc = await connect({
      servers: [...options.servers],
      name: `godb-${options.nodeId}`,
      maxReconnectAttempts: -1,
      reconnectTimeWait: 250,
    });
    const log = new NatsLog(nc, options);
    try {
      checkNatsVersion(nc.info?.version);
      log.#servers = NatsServerWatch.start(nc, { syncAlways: options.syncAlways ?? false, logger: options.logger });
      log.#watchConnection();
      // Each step that asks JetStream is retried, bounded, while it does not answer (see retryAtStart).
      const { logger } = options;
      const jsm = await retryAtStart('reaching JetStream', () => jetstreamManager(nc), logger);
      log.#jsm = jsm;
      const placement = await retryAtStart(
        `opening the KV bucket ${shardsBucket}`,
        () => new Kvm(nc).create(shardsBucket, { replicas: log.replicas, history: 1 }),
        logger,
      );
      log.#placement = placement;
      await retryAtStart(`reading the shard count in ${shardsBucket}`, () => log.#checkShardCount(placement), logger);
      const lasts = await retryAtStart('making the shard streams', () => log.#ensureStreams(jsm), logger);
      const target = lasts.reduce((a, b) => a + b, 0);
      // Each stream's leader answered just now: confirmed, until the watchdog's checks say otherwise.
      for (const shard of log.#shards) [shard.known, shard.confirmedAt] = [lasts[shard.index] ?? 0, performance.now()];
      log.#startedAt = { from: log.applied, target };
      log.#start();
      log.ready = Promise.all(log.#shards.map((shard) => log.#reached(shard, lasts[shard.index] ?? 0))).then(
        () => undefined,
      );
    } catch (error) {
      await log.close();
      throw error;
    }
    return log;
  }

  /** The operations this node applied, over every shard (the sum of each shard's last applied sequence). */
  get applied(): number {
    return this.#shards.reduce((sum, shard) => sum + shard.applied, 0);
  }

  /** The last sequence applied of each shard (index = shard). */
  appliedByShard(): number[] {
    return this.#shards.map((shard) => shard.applied);
  }

  /** How many shard streams the log has. */
  get shardCount(): number {
    return this.#shards.length;
  }

  /** The NATS connection, shared with the coordination in KV (progress, leases) and the cluster snapshots. */
  get connection(): NatsConnection {
    return this.#nc;
  }

  /** How many NATS servers NATS_URL names (buckets are replicated on up to three of them, as the streams). */
  get replicas(): number {
    return Math.min(3, this.#options.servers.length);
  }

  /** The watch of the NATS servers' versions after the start (tests await its checks). */
  get servers(): NatsServerWatch | null {
    return this.#servers;
  }

  /** The version of the NATS server this node is connected to now. */
  get natsVersion(): string {
    return this.#nc.info?.version ?? 'unknown';
  }

  /** This node's progress, for /readyz and /metrics; `halted` while it cannot apply the next operation of a shard. */
  status(): {
    node: string;
    applied: number;
    lag: number;
    shards: ShardStatus[];
    halted?: Halt;
    startingUp?: { applied: number; target: number; from: number };
    refusingWrites?: ServerRefusal;
    stale?: Staleness;
  } {
    const startingUp = this.startingUp();
    const shards = this.#shards.map((s) => ({
      shard: s.index,
      applied: s.applied,
      lag: Math.max(0, s.known - s.applied),
      ...(s.waitingFor !== null && { waitingFor: s.waitingFor }),
    }));
    const halted = this.#shards.find((s) => s.halted)?.halted;
    const refusing = this.#servers?.refusal();
    const stale = this.#staleOn(this.#shards);
    return {
      node: this.#options.nodeId,
      applied: this.applied,
      lag: shards.reduce((sum, s) => sum + s.lag, 0),
      shards,
      ...(halted && { halted }),
      ...(startingUp && { startingUp }),
      ...(refusing && { refusingWrites: refusing }),
      ...(stale && { stale }),
    };
  }

  /**
   * Why an answer to a caller of `tenantId` may be stale, or null when this node is current for the shards it depends
   * on: the directory's, and the tenant's (every shard while the tenant's is not known here: its data may be on any).
   * "Current" is what JetStream confirmed: a shard counts as current while its stream's leader answered the
   * watchdog's last check (every 2.5 s) reaching a majority of its replicas, or acknowledged a write, within the last
   * 10 s, and this node applies it (not halted). It may not be current when that answer failed or is older, or the
   * connection to every NATS server is down: with a majority of the NATS servers down or out of reach, writes made
   * through them on other nodes would not reach this one, and it cannot tell. Lag while it applies what it was told
   * of is not staleness (`/readyz` shows it as `lag`; X-GoDB-Consistency waits for it).
   */
  staleness(tenantId?: string): Staleness | null {
    const own = tenantId === undefined ? undefined : this.#tenantShards.get(tenantId);
    const shards =
      tenantId === undefined
        ? [this.#shard(directoryShard)]
        : own === undefined
          ? this.#shards
          : [...new Set([this.#shard(directoryShard), this.#shard(own)])];
    return this.#staleOn(shards);
  }

  #staleOn(shards: readonly Shard[]): Staleness | null {
    const now = performance.now();
    const seconds = (since: number) => Math.max(1, Math.round((now - since) / 1000));
    if (this.#disconnectedAt !== null) {
      return {
        reason: `this node has been disconnected from every NATS server for ${seconds(this.#disconnectedAt)} s (reconnecting); writes other nodes made since may be missing here`,
        shards: shards.map((s) => s.index),
      };
    }
    const failing = shards.filter((s) => s.halted || s.unconfirmed !== null || now - s.confirmedAt > confirmedForMs);
    const first = failing[0];
    if (!first) return null;
    const named =
      failing.length === 1
        ? `shard ${first.index}`
        : `${failing.length} shards (${failing.map((s) => s.index).join(', ')})`;
    const reason = first.halted
      ? `this node stopped applying shard ${first.index} at sequence ${first.halted.seq} (${first.halted.reason}); writes after it are missing here`
      : `JetStream has not confirmed for ${seconds(first.confirmedAt)} s that this node is current on ${named} (stream ${first.stream}: ${first.unconfirmed ?? 'its leader has not answered since'}); a majority of the NATS servers may be down or out of reach, and writes other nodes made through them may be missing here`;
    return { reason, shards: failing.map((s) => s.index) };
  }

  /** Follows the connection's state: while it is down (the client reconnecting), reads are marked stale. */
  #watchConnection(): void {
    void (async () => {
      for await (const status of this.#nc.status()) {
        if (status.type === 'disconnect') this.#disconnectedAt ??= performance.now();
        if (status.type === 'reconnect') this.#disconnectedAt = null;
      }
    })().catch(() => undefined);
  }

  /**
   * Records what one stream info said of its shard: confirmed when its leader reaches a majority of its replicas (a
   * leader cut off from the others keeps answering for a while before it steps down, with what it last had).
   */
  #confirm(shard: Shard, info: StreamInfo): void {
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

  /** One shard stream's first and last sequences now, from its stream info (which confirms the shard, or not). */
  async #boundsOf(index: number): Promise<{ first: number; last: number }> {
    const shard = this.#shard(index);
    try {
      const jsm = this.#jsm ?? (await jetstreamManager(this.#nc));
      const info = await jsm.streams.info(shardStream(index));
      this.#confirm(shard, info);
      return { first: info.state.first_seq, last: info.state.last_seq };
    } catch (error) {
      shard.unconfirmed = `its leader did not answer: ${(error as Error).message}`;
      throw error;
    }
  }

  /** Every shard stream's first and last sequences now (index = shard; the first moves up when a shard is truncated). */
  async shardBounds(): Promise<{ first: number; last: number }[]> {
    const jsm = this.#jsm ?? (await jetstreamManager(this.#nc));
    const found = new Map<string, { first: number; last: number }>();
    for await (const info of jsm.streams.list(shardSubjects)) {
      found.set(info.config.name, { first: info.state.first_seq, last: info.state.last_seq });
    }
    return this.#shards.map((shard) => {
      const bounds = found.get(shard.stream);
      if (!bounds) throw new Error(`stream ${shard.stream} is missing`);
      return bounds;
    });
  }

  /** The operations the log holds, over every shard (the sum of each shard's last sequence), as JetStream says now. */
  async lastSequence(): Promise<number> {
    return (await this.shardBounds()).reduce((sum, b) => sum + b.last, 0);
  }

  /**
   * Truncates shard `shard`: removes every operation below `seq` (JetStream purge with `seq`, which keeps `seq` and
   * after). Only the lease holder calls it, below what every live node and the latest verified snapshot hold.
   */
  async truncateBefore(shard: number, seq: number): Promise<number> {
    const jsm = this.#jsm ?? (await jetstreamManager(this.#nc));
    return (await jsm.streams.purge(shardStream(shard), { seq })).purged;
  }

  /**
   * The shard of a tenant's data, as the KV bucket `godb-shards` fixes it. `create`: on the tenant's first write,
   * fix it if absent (create-if-absent with the hash of its id as the proposal; whichever node's create wins, every
   * node then reads that entry); otherwise null for a tenant with no entry (it has no data in the log yet).
   *
   * An entry never changes once made, so any replica that holds it answers right (the KV's direct get, which works
   * while the bucket elects a leader); but a replica that has not stored it yet answers none, so "none" is asked again
   * of the bucket's stream leader. A tenant's write sent to another shard than its placement (the directory's, as it
   * once was on a "none" from a lagging replica) is applied in another order on each node (issue #16: two copies of
   * one retried write, one per shard, left the nodes with different documents). With `create`, an entry that cannot
   * be read after a create that failed is CLUSTER_UNAVAILABLE, never a guess.
   */
  async shardOfTenant(tenantId: string, create: boolean): Promise<number | null> {
    const cached = this.#tenantShards.get(tenantId);
    if (cached !== undefined) return cached;
    if (!this.#placement || !this.#jsm) throw new Error('the log is not open');
    const kv = this.#placement;
    const jsm = this.#jsm;
    const key = placementKey(tenantId);
    const read = async () => {
      const replica = await kv.get(key).catch(() => null);
      if (replica?.operation === 'PUT') return Number(replica.string());
      const stored = await jsm.streams.getMessage(`KV_${shardsBucket}`, { last_by_subj: `$KV.${shardsBucket}.${key}` });
      // A KV delete or purge leaves a marker with this header; GoDB never removes a placement.
      return stored && !stored.header?.get('KV-Operation') ? Number(stored.string()) : null;
    };
    try {
      let shard = await read();
      if (shard === null && create) {
        const proposal = proposedShard(tenantId, this.#shards.length);
        shard = await kv.create(key, String(proposal)).then(
          () => proposal,
          // Another node fixed it first (or the create was stored and its answer lost): its entry stands.
          async (error: unknown) => {
            const found = await read();
            if (found === null) throw error;
            return found;
          },
        );
      }
      if (shard === null) return null;
      if (!Number.isInteger(shard) || shard < 0 || shard >= this.#shards.length) {
        throw new Error(`the shard map names shard ${shard} for this tenant; the log has ${this.#shards.length}`);
      }
      this.#tenantShards.set(tenantId, shard);
      return shard;
    } catch (error) {
      throw createError('CLUSTER_UNAVAILABLE', {
        timeout_ms: this.#options.publishTimeoutMs,
        reason: `the tenant's shard could not be read from the KV bucket ${shardsBucket}: ${(error as Error).message}`,
      });
    }
  }

  /**
   * The shards an answer to a caller of `tenantId` depends on, and this node's place in each: the directory's (0) and
   * the tenant's once it has one here. As `X-GoDB-Seq`: `0:17,5:42` (shard:sequence pairs).
   */
  position(tenantId?: string): string {
    const shards = new Set([directoryShard]);
    const own = tenantId === undefined ? undefined : this.#tenantShards.get(tenantId);
    if (own !== undefined) shards.add(own);
    return [...shards]
      .sort((a, b) => a - b)
      .map((shard) => `${shard}:${this.#shard(shard).applied}`)
      .join(',');
  }

  startingUp(): { applied: number; target: number; from: number } | undefined {
    const started = this.#startedAt;
    return started ? { applied: this.applied, ...started } : undefined;
  }

  /**
   * Calls `listener` after each operation this node applies from now on (whatever its outcome; not one it had applied
   * already), in log order: the cluster's duties record which restore names which kept archive copy (kept-archives.ts).
   */
  onApplied(listener: (shard: number, seq: number, op: Operation) => void): void {
    this.#appliedListeners.push(listener);
  }

  /** The node serves its API: called once it caught up (`ready`) and finished its start (the super admin). */
  serve(): void {
    this.#startedAt = null;
  }

  /**
   * Resolves once this node applied what `want` asks (the sequences it names, or everything the shards of `tenantId`'s
   * answers hold now: the directory's and the tenant's), within NATS_PUBLISH_TIMEOUT_MS; else CLUSTER_LAGGING. Another
   * tenant's backlog is not waited for. A sequence beyond its shard's last is refused (it would never come, or not
   * from this cluster).
   */
  async catchUp(want: Consistency, tenantId?: string, signal?: AbortSignal): Promise<void> {
    const wanted = new Map<number, number>();
    for (const [key, seq] of Object.entries(want.minSeq ?? {})) {
      const shard = Number(key);
      if (shard >= this.#shards.length) {
        throw createError(
          'VALIDATION_FAILED',
          { detail: `X-GoDB-Min-Seq names shard ${shard}; the log has shards 0 to ${this.#shards.length - 1}` },
          { field: 'headers.x-godb-min-seq' },
        );
      }
      wanted.set(shard, Math.max(wanted.get(shard) ?? 0, seq));
    }
    const strong = new Set<number>();
    if (want.strong) {
      strong.add(directoryShard);
      const own = tenantId === undefined ? null : await this.shardOfTenant(tenantId, false);
      if (own !== null) strong.add(own);
    }
    const ahead = [...wanted].some(([shard, seq]) => seq > this.#shard(shard).known);
    if (strong.size > 0 || ahead) {
      // Only the shards asked for, each from its own stream's leader (listing every stream needs the meta leader).
      const needed = [...new Set([...wanted.keys(), ...strong])];
      const lasts = new Map(
        await Promise.all(needed.map(async (i) => [i, (await this.#boundsOf(i)).last] as const)).catch(
          (error: unknown) => {
            throw createError('CLUSTER_UNAVAILABLE', {
              timeout_ms: this.#options.publishTimeoutMs,
              reason: `the shards' last sequences could not be read: ${(error as Error).message}`,
            });
          },
        ),
      );
      for (const [i, last] of lasts) this.#shard(i).known = Math.max(this.#shard(i).known, last);
      // A leader without a majority answers what it last had: no basis for a strong read (see staleness()).
      const doubtful = [...strong].map((i) => this.#shard(i)).find((shard) => shard.unconfirmed !== null);
      if (doubtful) {
        throw createError('CLUSTER_UNAVAILABLE', {
          timeout_ms: this.#options.publishTimeoutMs,
          reason: `shard ${doubtful.index}'s last sequence could not be confirmed: ${doubtful.unconfirmed}`,
        });
      }
      for (const [shard, seq] of wanted) {
        const last = lasts.get(shard) ?? 0;
        if (seq > last) {
          throw createError(
            'VALIDATION_FAILED',
            { detail: `X-GoDB-Min-Seq ${shard}:${seq} is beyond shard ${shard}'s last sequence, ${last}` },
            { field: 'headers.x-godb-min-seq' },
          );
        }
      }
      for (const shard of strong) wanted.set(shard, Math.max(wanted.get(shard) ?? 0, lasts.get(shard) ?? 0));
    }
    const behind = [...wanted].filter(([shard, seq]) => this.#shard(shard).applied < seq);
    if (behind.length === 0) return;
    const bound = abortAfter(this.#options.publishTimeoutMs, signal);
    const reached = await Promise.all(
      behind.map(([shard, seq]) => this.#reached(this.#shard(shard), seq, bound.signal)),
    ).finally(() => bound.clear());
    if (reached.every(Boolean)) return;
    signal?.throwIfAborted();
    const [shard, seq] = behind.find(([s, q]) => this.#shard(s).applied < q) ?? behind[0] ?? [0, 0];
    throw createError('CLUSTER_LAGGING', {
      applied: this.#shard(shard).applied,
      wanted: seq,
      timeout_ms: this.#options.publishTimeoutMs,
      detail: `Shard ${shard} is behind here. Retry, or read from another node.`,
    });
  }

  /** Resolves once this node applied `total` operations over every shard (the sum `applied` reports). */
  waitFor(total: number): Promise<void> {
    if (this.applied >= total) return Promise.resolve();
    return new Promise((resolve) => this.#totalWaiters.push({ seq: total, resolve }));
  }

  /** Resolves once this node applied `seq` of shard `shard`. */
  waitForShard(shard: number, seq: number): Promise<void> {
    return this.#reached(this.#shard(shard), seq).then(() => undefined);
  }

  /**
   * A runner for a request's work: the operations submitted inside it get message ids made from `key`, scoped by
   * `scope` (the tenant), and from their rank in the request: the same request sent again with the same key makes the
   * same ids, which JetStream drops within its duplicate window, and is answered what the first one answered.
   */
  idempotent(scope: string, key: string): <R>(work: () => R) => R {
    const request: Idempotency = { scope, key, submitted: 0 };
    return (work) => this.#idempotency.run(request, work);
  }

  submit(body: OperationBody): Promise<unknown> {
    const request = this.#idempotency.getStore();
    let id: string = randomUUID();
    // Only what the request itself writes takes a rank, so its operations get the same ids when it is sent again.
    if (request && rankedByRequest(body)) {
      const rank = request.submitted;
      request.submitted += 1;
      id = `idem-${createHash('sha256')
        .update(JSON.stringify([request.scope, request.key, rank]))
        .digest('hex')
        .slice(0, 40)}`;
    }
    return this.publish({ ...body, id, node: this.#options.nodeId, now: this.#options.clock.now() });
  }

  /**
   * Publishes a decided operation to its home shard and answers its outcome here. Publishing the same operation again
   * (a retry after a lost acknowledgement) is applied once: JetStream drops the second copy, and this answers the
   * first's outcome.
   */
  async publish(op: Operation): Promise<unknown> {
    // A NATS server that joined since this node started cannot keep the durability promised: nothing is published.
    const refusing = this.#servers?.refusal();
    if (refusing) throw createError('CLUSTER_NOT_DURABLE', { reason: refusing.reason });
    const home = homeOf(op);
    const tenantShard = 'directory' in home ? directoryShard : await this.shardOfTenant(home.tenantId, true);
    // Never reached: with `create`, a tenant's shard is read or made, or the call fails.
    if (tenantShard === null) throw new Error("the tenant's shard is not fixed");
    const shard = this.#shard(tenantShard);
    const kept = this.#outcomes.get(op.id);
    let waiter: ((outcome: Outcome) => void) | null = null;
    const outcome =
      kept ??
      new Promise<Outcome>((resolve) => {
        waiter = resolve;
        this.#waiting.set(op.id, [...(this.#waiting.get(op.id) ?? []), resolve]);
      });
    const forget = () => {
      const left = (this.#waiting.get(op.id) ?? []).filter((resolve) => resolve !== waiter);
      if (left.length > 0) this.#waiting.set(op.id, left);
      else this.#waiting.delete(op.id);
    };
    const data = encodeOperation(op);
    if (data.byteLength > maxOperationBytes) {
      forget();
      throw createError('PAYLOAD_TOO_LARGE', { limit: maxOperationBytes });
    }
    // The directory state this operation was decided on: another node applies it only once its shard 0 reached it.
    const envelope = headers();
    envelope.set(afterHeader, String(this.#shard(directoryShard).applied));
    // While NATS elects a new stream leader (a NATS node died), publishes fail or time out: the same message again,
    // with the same id, until the deadline; JetStream stores it once however many attempts reached it.
    const deadline = performance.now() + this.#options.publishTimeoutMs;
    let seq = 0;
    let duplicate = false;
    for (let attempt = 1; ; attempt += 1) {
      const remaining = Math.round(deadline - performance.now());
      try {
        const ack = await this.#js.publish(shard.subject, data, {
          msgID: op.id,
          timeout: Math.max(1, remaining),
          headers: envelope,
        });
        shard.known = Math.max(shard.known, ack.seq);
        // Acknowledged: a majority of the stream's replicas stored it.
        [shard.unconfirmed, shard.confirmedAt] = [null, performance.now()];
        seq = ack.seq;
        duplicate = ack.duplicate;
        break;
      } catch (error) {
        const left = deadline - performance.now();
        if (left <= 0 || this.#closed) {
          forget();
          throw createError('CLUSTER_UNAVAILABLE', {
            timeout_ms: this.#options.publishTimeoutMs,
            reason: `${attempt} attempts; the last: ${(error as Error).message}`,
          });
        }
        await sleep(Math.min(retryPauseMs, left));
      }
    }
    if (!kept && duplicate && shard.applied >= seq && !this.#outcomes.has(op.id)) {
      // A retry of an operation this node applied before it kept outcomes (it restarted since, or forgot it).
      forget();
      throw createError('IDEMPOTENCY_KEY_REPLAYED', { seq });
    }
    const settled = await this.#settled(outcome, shard, seq, forget);
    if ('error' in settled) throw settled.error;
    // A new tenant's shard is fixed now, at best: its first write then needs any replica of the bucket, not the
    // leader a create needs (its first write fixes it otherwise).
    if (op.kind === 'create-user' && op.register)
      void this.shardOfTenant(op.user.tenantId, true).catch(() => undefined);
    return settled.value;
  }

  /**
   * The outcome of the operation stored at `seq` of `shard`, once this node applied it, within
   * NATS_PUBLISH_TIMEOUT_MS: a node whose consumer is stuck answers 503 CLUSTER_LAGGING rather than hold the request
   * for ever (the operation is in the log all the same, and every node applies it).
   */
  async #settled(outcome: Promise<Outcome> | Outcome, shard: Shard, seq: number, forget: () => void): Promise<Outcome> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<null>((resolve) => {
      timer = setTimeout(() => resolve(null), this.#options.publishTimeoutMs);
    });
    const settled = await Promise.race([outcome, late]).finally(() => clearTimeout(timer));
    if (settled) return settled;
    forget();
    throw createError('CLUSTER_LAGGING', {
      applied: shard.applied,
      wanted: seq,
      timeout_ms: this.#options.publishTimeoutMs,
      detail: `The write is stored in the log (shard ${shard.index}, sequence ${seq}) and every node applies it: read it on another node with X-GoDB-Min-Seq: ${shard.index}:${seq}, or send it again with the same Idempotency-Key (applied once).${shard.halted ? ` This node stopped at sequence ${shard.halted.seq} of that shard: ${shard.halted.reason}.` : ''}`,
    });
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#closing.abort();
    if (this.#watchdog) clearInterval(this.#watchdog);
    for (const shard of this.#shards) shard.messages?.stop();
    // A consumer loop may be inside a JetStream request (making its consumer while a stream elects a leader) that
    // only the connection's end cuts short: the loops get a moment to end, then the connection closes, then they end.
    const loops = Promise.all(this.#shards.map((shard) => shard.loop.catch(() => undefined)));
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([loops, new Promise((resolve) => (timer = setTimeout(resolve, closeGraceMs)))]);
    clearTimeout(timer);
    if (!this.#nc.isClosed()) await this.#nc.close();
    await loops;
    // An operation read from a leader before the close is applied, or not, before the store closes.
    await Promise.all(this.#shards.map((shard) => shard.turn));
  }

  /**
   * The shard count is fixed for a cluster's life (a tenant's shard is a number in the map): the first node records
   * it in `godb-shards`; a node configured with another count refuses to start.
   */
  async #checkShardCount(kv: KV): Promise<void> {
    const count = this.#shards.length;
    const recorded = await kv.create(shardCountKey, String(count)).then(
      () => count,
      async (error: unknown) => {
        const entry = await kv.get(shardCountKey);
        // No entry: the create failed for another reason than a count recorded first (JetStream did not answer).
        if (entry?.operation !== 'PUT') throw error;
        return Number(entry.string());
      },
    );
    if (recorded !== count) {
      throw new ConfigError(
        `Cluster mode: CLUSTER_SHARDS is ${count}, but this cluster's log has ${recorded} shard streams (fixed when it was made, in the KV bucket ${shardsBucket}). Set CLUSTER_SHARDS=${recorded}.`,
      );
    }
  }

  /**
   * Makes sure every shard stream exists and has a leader; answers their last sequences. One request lists the
   * streams that exist; the missing ones are made one after the other (sixteen requests at once timed out on a loaded
   * three-server cluster), and their leaders, elected meanwhile, are awaited together.
   */
  async #ensureStreams(jsm: JetStreamManager): Promise<number[]> {
    const existing = new Map<string, StreamInfo>();
    for await (const info of jsm.streams.list(shardSubjects)) existing.set(info.config.name, info);
    for (const shard of this.#shards) {
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
              num_replicas: this.replicas,
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
      this.#shards.map(async (shard) => {
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

  /**
   * Applies every shard in order from the next sequence this node has not applied, for as long as it runs. A
   * consumer that stops (its NATS server died, the stream was electing a leader) is made again from the next
   * unapplied sequence: applying an operation twice is impossible (the store records each shard's applied sequence),
   * and skipping one is too (each new consumer starts right after it).
   */
  #start(): void {
    this.#watchdog = setInterval(() => void this.#watch(), watchdogMs);
    this.#watchdog.unref();
    for (const shard of this.#shards) {
      shard.loop = (async () => {
        while (!this.#closed) {
          try {
            await this.#consume(shard);
          } catch (error) {
            if (!this.#closed) {
              this.#options.logger.error({ err: error, shard: shard.index }, 'cluster mode: a log consumer stopped');
            }
          }
          if (!this.#closed) await sleep(shard.halted ? haltedRetryMs : retryPauseMs);
        }
      })();
    }
  }

  /**
   * The client's own recovery does not cover every failure (a consumer whose server died while the stream elected a
   * leader has been seen to stay silent without reporting missed heartbeats): when a shard's stream holds more than
   * its consumer delivered, and the consumer delivered nothing for two checks in a row (while no operation of the
   * shard was being applied), it is stopped, and #start makes a new one. Meanwhile #readFromLeader applies what the
   * consumer does not deliver.
   */
  async #watch(): Promise<void> {
    if (this.#closed) return;
    // A shard this node knows to be ahead of it (a write it published, a pending count) that applied nothing since
    // the last check is read from its leader: decided without asking JetStream, which may take a while to answer now.
    for (const shard of this.#shards) {
      const behind = shard.applied < shard.known && shard.applied === shard.watched.seen;
      shard.watched.seen = shard.applied;
      // Not while an operation is being applied (that is progress), halted (#start retries it), or waiting for the
      // directory shard (what it waits for is read there).
      const busy = shard.applying || shard.halted !== null || shard.waitingFor !== null || shard.reading;
      if (behind && !busy) void this.#readFromLeader(shard);
    }
    if (this.#watchBusy) return;
    this.#watchBusy = true;
    try {
      // Each stream from its own leader, so that a shard whose leader answers is checked while another's elects one
      // (listing every stream needs the meta leader, which a NATS server's death may take away for a while).
      const bounds = await Promise.all(this.#shards.map((shard) => this.#boundsOf(shard.index).catch(() => null)));
      for (const shard of this.#shards) {
        const { first, last } = bounds[shard.index] ?? {};
        if (last === undefined || first === undefined) continue;
        shard.known = Math.max(shard.known, last);
        // Truncated past this node with nothing after the purge: no message comes to show it (its consumer waits
        // on an empty stream, and a halt on a failing operation kept that reason), so the bounds show it. It was seen
        // as a halt minutes after the purge: when the shard's next operation happened to be written.
        if (first > shard.applied + 1) {
          this.#truncatedPast(shard, first);
          continue;
        }
        // A halted shard is behind on purpose (#start retries its operation), one waiting for the directory shard
        // is too, and one applying a long operation delivers nothing meanwhile: a new consumer would change nothing.
        // Counted in what the consumer delivered, not what was applied: reads from the leader apply too.
        const stalled = shard.delivered < last && shard.delivered === shard.watched.delivered;
        const excused = shard.halted !== null || shard.waitingFor !== null || shard.applying;
        shard.watched.stalls = stalled && !excused ? shard.watched.stalls + 1 : 0;
        shard.watched.delivered = shard.delivered;
        if (shard.watched.stalls >= 2) {
          shard.watched.stalls = 0;
          this.#options.logger.error(
            { shard: shard.index, applied: shard.applied, delivered: shard.delivered, last },
            'cluster mode: a log consumer delivered nothing; making a new one',
          );
          shard.messages?.stop();
        }
      }
    } catch {
      // NATS cannot answer now (no majority): nothing to compare; the next check tries again.
    } finally {
      this.#watchBusy = false;
    }
  }

  async #consume(shard: Shard): Promise<void> {
    const consumer = await this.#js.consumers.get(shard.stream, {
      deliver_policy: DeliverPolicy.StartSequence,
      opt_start_seq: shard.applied + 1,
    });
    // Pulls expire every 5 s rather than 30, so missed heartbeats (every 2.5 s) show a dead server in seconds.
    const messages = await consumer.consume({ expires: consumeExpiresMs, max_bytes: consumeMaxBytes });
    shard.messages = messages;
    shard.delivered = shard.applied;
    if (this.#closed) messages.stop();
    void (async () => {
      for await (const status of messages.status()) {
        // Two heartbeats missed: this consumer is not being fed; stop it, and #start makes a new one.
        if (status.type === 'heartbeats_missed' && status.count >= 2) messages.stop();
      }
    })().catch(() => undefined);
    for await (const message of messages) {
      if (this.#closed) return;
      shard.known = Math.max(shard.known, message.seq + message.info.pending);
      shard.delivered = Math.max(shard.delivered, message.seq);
      const next = await this.#inTurn(shard, async () => {
        if (message.seq <= shard.applied) return true;
        if (message.seq > shard.applied + 1) {
          this.#truncatedPast(shard, message.seq);
          return false;
        }
        return this.#applyStored(shard, message.seq, message.headers, message.data);
      });
      if (!next) {
        // Never past an operation this node could not apply: the consumer stops, and #start makes a new one from
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

  /**
   * Applies the operation stored at `seq` of `shard`, the next this node applies, once the directory holds what it
   * was decided on (the ordering rule across shards, operation-shard.ts). False when it was not applied: it failed
   * here (the shard is halted), or the log is closing.
   */
  async #applyStored(
    shard: Shard,
    seq: number,
    stored: { get(name: string): string } | undefined,
    data: Uint8Array,
  ): Promise<boolean> {
    const after = Number(stored?.get(afterHeader) || 0);
    const directory = this.#shard(directoryShard);
    if (shard !== directory && after > directory.applied) {
      shard.waitingFor = after;
      const reached = await this.#reached(directory, after, this.#closing.signal);
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

  /** Runs `work` once the shard's previous operation is applied: the consumer and the leader reads take turns. */
  #inTurn<T>(shard: Shard, work: () => Promise<T>): Promise<T> {
    const run = shard.turn.then(work);
    shard.turn = run.catch(() => undefined);
    return run;
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
    const jsm = this.#jsm;
    if (!jsm) return;
    shard.reading = true;
    const delivered = shard.delivered;
    try {
      for (let read = 0; read < leaderReadsPerCheck && shard.applied < shard.known; read += 1) {
        // The consumer delivers again: the rest is its.
        if (this.#closed || shard.delivered > delivered) return;
        const seq = shard.applied + 1;
        const stored = await jsm.streams.getMessage(shard.stream, { seq });
        // Gone: the shard was truncated past this node (the watchdog sees to it from the stream's bounds).
        if (!stored) return;
        const next = await this.#inTurn(shard, async () => {
          if (this.#closed) return false;
          // The consumer applied it meanwhile: the next one.
          return shard.applied >= seq || this.#applyStored(shard, seq, stored.header, stored.data);
        });
        if (!next) {
          // Failed here: the consumer (silent or not) stops, and #start retries the operation after a pause.
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

  /**
   * The log was truncated past this node (it counted as gone, see CLUSTER_NODE_GONE_S): what it misses is only in a
   * snapshot now, the shard starting at `first`. It stops rather than skip operations; restarted, it restores the
   * latest snapshot.
   */
  #truncatedPast(shard: Shard, first: number): void {
    const reason = `the log was truncated past this node: it applied ${shard.applied} of shard ${shard.index} and that shard now starts at ${first}; restart the node to restore the latest cluster snapshot`;
    if (shard.halted?.reason !== reason) this.#options.logger.error({ applied: shard.applied }, reason);
    shard.halted = { shard: shard.index, seq: shard.applied + 1, reason };
  }

  /** Applies one operation of a shard; false (and the shard halted) when it failed for a reason of this node's. */
  async #apply(shard: Shard, seq: number, op: Operation): Promise<boolean> {
    let applied;
    try {
      await this.#options.applier.prepare(shard.index, seq, op);
      applied = this.#options.applier.apply(shard.index, seq, op);
    } catch (error) {
      const reason = (error as Error).message;
      if (shard.halted?.seq !== seq || shard.halted.reason !== reason) {
        this.#options.logger.error(
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
    if ('tenantId' in home && shard.index !== directoryShard) this.#tenantShards.set(home.tenantId, shard.index);
    if (applied) {
      for (const listener of this.#appliedListeners) listener(shard.index, seq, op);
      // Kept for every node's operations (a request retried with its Idempotency-Key may reach another node), and
      // at once: a duplicate acknowledged while the tail runs finds it.
      this.#outcomes.set(op.id, applied.outcome);
      const oldest = this.#outcomes.keys().next().value;
      if (this.#outcomes.size > keptOutcomes && oldest !== undefined) this.#outcomes.delete(oldest);
      await applied
        .tail()
        .catch((error: unknown) =>
          this.#options.logger.error({ err: error, seq }, 'cluster mode: the work after an operation failed'),
        );
      for (const resolve of this.#waiting.get(op.id) ?? []) resolve(applied.outcome);
      this.#waiting.delete(op.id);
    }
    shard.waiters = release(shard.waiters, shard.applied);
    this.#totalWaiters = release(this.#totalWaiters, this.applied);
    return true;
  }

  /** Shard `i` (a number checked against the shard count where it comes from a request or the shard map). */
  #shard(i: number): Shard {
    const shard = this.#shards[i];
    if (!shard) throw new Error(`shard ${i} is not one of this log's ${this.#shards.length}`);
    return shard;
  }

  /** True once `shard` reached `seq`; false when `signal` ends the wait first. */
  #reached(shard: Shard, seq: number, signal?: AbortSignal): Promise<boolean> {
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
}

/** Resolves the waiters whose sequence is reached; answers those left. */
function release(waiters: { seq: number; resolve: () => void }[], applied: number) {
  if (!waiters.some((w) => w.seq <= applied)) return waiters;
  for (const waiter of waiters) if (waiter.seq <= applied) waiter.resolve();
  return waiters.filter((w) => w.seq > applied);
}

/** The key of a tenant in `godb-shards`: KV keys take few characters, tenant ids any. */
const placementKey = (tenantId: string) => `tenant.${Buffer.from(tenantId).toString('base64url') || '_'}`;
