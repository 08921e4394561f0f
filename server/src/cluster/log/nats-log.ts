import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { ConfigError } from '../../config/env.js';
import type { Clock } from '../../engine/clock.js';
import type { OperationApplier } from '../../engine/operations/operation-applier.js';
import type {
  ClusterReads,
  Consistency,
  Operation,
  OperationBody,
  SubmitOptions,
  OperationLog,
} from '../../engine/operations/operation.js';
import { NatsServerWatch, type ServerRefusal } from '../nats-server-watch.js';
import { Partitions } from '../partition/partitions.js';
import { checkNatsVersion } from '../nats-version.js';
import { retryAtStart, type ClusterLogger } from '../start-retries.js';
import { Outcomes } from './outcomes.js';
import { Placement } from './placement.js';
import { LogPosition, type StartingUp, type Staleness } from './position.js';
import { Publisher } from './publisher.js';
import { ShardApplier, type AppliedListener } from './shard-applier.js';
import { ShardConsumers } from './shard-consumer.js';
import { legacyStream, ShardStreams } from './shard-streams.js';
import { Shards, type Halt, type ShardStatus } from './shards.js';
import { Watchdog } from './watchdog.js';

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
  /** A collection's shard count when its creation names none (CLUSTER_COLLECTION_SHARDS; 1: not partitioned). */
  readonly defaultCollectionShards?: number;
  readonly logger: ClusterLogger;
}

/** How long closing lets the consumer loops end before it closes the connection under them. */
const closeGraceMs = 2_000;

/**
 * The replicated log on NATS JetStream: {@link NatsLogOptions.shards} file-backed shard streams (`godb-shard-00` …,
 * replicated on up to three NATS servers). An operation is published to its home shard (see operation-shard.ts: the
 * directory on shard 0, a tenant's data on the tenant's shard, fixed in the KV bucket `godb-shards`) with its id as
 * `Nats-Msg-Id`, and every node applies every shard in order through one ordered consumer per shard, from the
 * sequence its store recorded for that shard. A write answers once JetStream acknowledged it and this node applied
 * it (read-your-writes on the node that took it).
 *
 * This class composes the parts in this folder: the streams (shard-streams.ts), the tenants' shards (placement.ts),
 * the publishes (publisher.ts), the consumers (shard-consumer.ts) applying through shard-applier.ts, the watchdog
 * (watchdog.ts) and the node's place in the log (position.ts).
 *
 * @example
 *   const log = await NatsLog.open({ servers, nodeId: 'a', shards: 16, applier, clock, publishTimeoutMs: 5000, logger });
 *   engine.attachLog(log); … await log.close();
 */
export class NatsLog implements OperationLog, ClusterReads {
  readonly #nc: NatsConnection;
  readonly #options: NatsLogOptions;
  readonly #shards: Shards;
  readonly #streams: ShardStreams;
  readonly #placement: Placement;
  readonly #position: LogPosition;
  readonly #applier: ShardApplier;
  readonly #consumers: ShardConsumers;
  readonly #watchdog: Watchdog;
  readonly #publisher: Publisher;
  readonly #outcomes: Outcomes;
  readonly #js: ReturnType<typeof jetstream>;
  /** Partitioned collections (decision 0062), once JetStream answered at the start. */
  #partitions: Partitions | null = null;
  /** The versions of the NATS servers this node learns of after its start (see nats-server-watch.ts). */
  #servers: NatsServerWatch | null = null;
  readonly #closing = new AbortController();
  /** Resolves once this node applied what the log held when it started. */
  ready: Promise<void> = Promise.resolve();

  private constructor(nc: NatsConnection, options: NatsLogOptions) {
    this.#nc = nc;
    this.#options = options;
    const js = jetstream(nc);
    const { logger, publishTimeoutMs } = options;
    const closing = this.#closing.signal;
    const shards = new Shards(options.shards, (index) => options.applier.applied(index));
    const placement = new Placement(options.shards, publishTimeoutMs);
    const outcomes = new Outcomes();
    this.#outcomes = outcomes;
    this.#js = js;
    this.#shards = shards;
    this.#placement = placement;
    this.#streams = new ShardStreams(nc, shards, this.replicas);
    this.#position = new LogPosition({ shards, streams: this.#streams, placement, publishTimeoutMs });
    this.#applier = new ShardApplier({ applier: options.applier, logger, shards, placement, outcomes, closing });
    this.#consumers = new ShardConsumers({ js, shards, applier: this.#applier, logger, closing });
    this.#watchdog = new Watchdog({ shards, streams: this.#streams, applier: this.#applier, logger, closing });
    this.#publisher = new Publisher({
      js,
      nodeId: options.nodeId,
      clock: options.clock,
      publishTimeoutMs,
      shards,
      placement,
      outcomes,
      refusal: () => this.#servers?.refusal(),
      closing,
    });
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
      log.#position.watchConnection(nc);
      // Each step that asks JetStream is retried, bounded, while it does not answer (see retryAtStart).
      const { logger } = options;
      const jsm = await retryAtStart('reaching JetStream', () => jetstreamManager(nc), logger);
      log.#streams.opened(jsm);
      await log.#placement.open(nc, jsm, log.replicas, logger);
      log.#partitions = await retryAtStart(
        'opening the partitioned collections',
        () =>
          Partitions.open(
            {
              nc,
              js: log.#js,
              nodeId: options.nodeId,
              applier: options.applier,
              shards: log.#shards,
              placement: log.#placement,
              outcomes: log.#outcomes,
              publishTimeoutMs: options.publishTimeoutMs,
              defaultShards: options.defaultCollectionShards ?? 1,
              logger,
              closing: log.#closing.signal,
            },
            jsm,
            log.replicas,
          ),
        logger,
      );
      const partitions = log.#partitions;
      log.#applier.onApplied((_shard, _seq, op) => partitions.applied(op));
      const lasts = await retryAtStart('making the shard streams', () => log.#streams.ensure(jsm), logger);
      const target = lasts.reduce((a, b) => a + b, 0);
      // Each stream's leader answered just now: confirmed, until the watchdog's checks say otherwise.
      for (const shard of log.#shards.all) {
        [shard.known, shard.confirmedAt] = [lasts[shard.index] ?? 0, performance.now()];
      }
      log.#position.started(log.applied, target);
      log.#watchdog.start();
      log.#consumers.start();
      log.ready = Promise.all(log.#shards.all.map((shard) => log.#shards.reached(shard, lasts[shard.index] ?? 0))).then(
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
    return this.#shards.applied;
  }

  /** The last sequence applied of each shard (index = shard). */
  appliedByShard(): number[] {
    return this.#shards.all.map((shard) => shard.applied);
  }

  /** How many shard streams the log has. */
  get shardCount(): number {
    return this.#shards.count;
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
    startingUp?: StartingUp;
    refusingWrites?: ServerRefusal;
    stale?: Staleness;
  } {
    const startingUp = this.startingUp();
    const shards = this.#shards.all.map((s) => ({
      shard: s.index,
      applied: s.applied,
      lag: Math.max(0, s.known - s.applied),
      ...(s.waitingFor !== null && { waitingFor: s.waitingFor }),
    }));
    const halted = this.#shards.all.find((s) => s.halted)?.halted;
    const refusing = this.#servers?.refusal();
    const stale = this.#position.staleOn(this.#shards.all);
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

  /** Why an answer to a caller of `tenantId` may be stale, or null (see LogPosition.staleness). */
  staleness(tenantId?: string): Staleness | null {
    return this.#position.staleness(tenantId);
  }

  /** Every shard stream's first and last sequences now (index = shard; the first moves up when a shard is truncated). */
  shardBounds(): Promise<{ first: number; last: number }[]> {
    return this.#streams.bounds();
  }

  /** Every shard stream's bounds, leader and replicas now, as JetStream describes them (see ShardStreams.describe). */
  describeShards(): ReturnType<ShardStreams['describe']> {
    return this.#streams.describe();
  }

  /** The operations the log holds, over every shard (the sum of each shard's last sequence), as JetStream says now. */
  async lastSequence(): Promise<number> {
    return (await this.shardBounds()).reduce((sum, b) => sum + b.last, 0);
  }

  /**
   * Truncates shard `shard`: removes every operation below `seq` (JetStream purge with `seq`, which keeps `seq` and
   * after). Only the lease holder calls it, below what every live node and the latest verified snapshot hold.
   */
  truncateBefore(shard: number, seq: number): Promise<number> {
    return this.#streams.truncateBefore(shard, seq);
  }

  /** The shard of a tenant's data, as the KV bucket `godb-shards` fixes it (see Placement.shardOf). */
  shardOfTenant(tenantId: string, create: boolean): Promise<number | null> {
    return this.#placement.shardOf(tenantId, create);
  }

  /** This node's place in the shards a caller of `tenantId` depends on, as X-GoDB-Seq (see LogPosition.token). */
  position(tenantId?: string): string {
    return this.#position.token(tenantId);
  }

  startingUp(): StartingUp | undefined {
    return this.#position.startingUp();
  }

  /**
   * Calls `listener` after each operation this node applies from now on (whatever its outcome; not one it had applied
   * already), in log order: the cluster's duties record which restore names which kept archive copy (kept-archives.ts).
   */
  onApplied(listener: AppliedListener): void {
    this.#applier.onApplied(listener);
  }

  /** The node serves its API: called once it caught up (`ready`) and finished its start (the super admin). */
  serve(): void {
    this.#position.serve();
  }

  /** Resolves once this node applied what `want` asks, within NATS_PUBLISH_TIMEOUT_MS (see LogPosition.catchUp). */
  catchUp(want: Consistency, tenantId?: string, signal?: AbortSignal): Promise<void> {
    return this.#position.catchUp(want, tenantId, signal);
  }

  /** Resolves once this node applied `total` operations over every shard (the sum `applied` reports). */
  waitFor(total: number): Promise<void> {
    return this.#shards.waitFor(total);
  }

  /** Resolves once this node applied `seq` of shard `shard`. */
  waitForShard(shard: number, seq: number): Promise<void> {
    return this.#shards.reached(this.#shards.get(shard), seq).then(() => undefined);
  }

  /** A runner for a request's work, whose operations get ids from `key` (see Publisher.idempotent). */
  idempotent(scope: string, key: string): <R>(work: () => R) => R {
    return this.#publisher.idempotent(scope, key);
  }

  submit(body: OperationBody, options?: SubmitOptions): Promise<unknown> {
    return this.#publisher.submit(body, options, (op) => this.publish(op));
  }

  /**
   * Publishes a decided operation to its home shard and answers its outcome here (see Publisher.publish); a
   * partitioned collection's creation and document writes go through its placement (see Partitions.route).
   */
  publish(op: Operation): Promise<unknown> {
    const partitions = this.#partitions;
    if (!partitions) return this.#publisher.publish(op);
    return partitions.route(op, (o) => this.#publisher.publish(o));
  }

  /** Partitioned collections (decision 0062); null before the log opened. */
  get partitions(): Partitions | null {
    return this.#partitions;
  }

  async close(): Promise<void> {
    this.#closing.abort();
    this.#watchdog.stop();
    this.#consumers.stop();
    this.#partitions?.stop();
    // A consumer loop may be inside a JetStream request (making its consumer while a stream elects a leader) that
    // only the connection's end cuts short: the loops get a moment to end, then the connection closes, then they end.
    const loops = Promise.all([this.#consumers.ended(), this.#partitions?.ended()]);
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([loops, new Promise((resolve) => (timer = setTimeout(resolve, closeGraceMs)))]);
    clearTimeout(timer);
    if (!this.#nc.isClosed()) await this.#nc.close();
    await loops;
    // An operation read from a leader before the close is applied, or not, before the store closes.
    await Promise.all(this.#shards.all.map((shard) => shard.turn));
  }
}
