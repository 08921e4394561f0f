import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash, randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
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
import { connect, nanos, type NatsConnection } from '@nats-io/transport-node';
import { ConfigError } from '../config/env.js';
import type { Clock } from '../engine/clock.js';
import type { OperationApplier, Outcome } from '../engine/cluster/apply-operation.js';
import {
  type ClusterReads,
  type Consistency,
  decodeOperation,
  encodeOperation,
  type Operation,
  type OperationBody,
  type OperationLog,
  rankedByRequest,
} from '../engine/cluster/operation.js';

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
  /** The stream's name; one stream for now (shards come later, see ARCHITECTURE.md). */
  readonly stream?: string;
  readonly logger: { info(obj: object, message: string): void; error(obj: object, message: string): void };
}

/** The stream every node applies, its subject, and the largest operation it takes. */
export const defaultStream = 'GODB_OPS';
const maxOperationBytes = 8 * 1024 * 1024;
/** JetStream drops a second publish of the same message id within this window (its default). */
const duplicateWindowMs = 120_000;
/** How long one pull of the log consumer waits for messages (heartbeats at half of it). */
const consumeExpiresMs = 5_000;
/** How often a node checks that its consumer keeps up with the stream. */
const watchdogMs = 2_500;
/** The pause between two attempts to publish an operation that was not acknowledged. */
const retryPauseMs = 250;
/** Outcomes of operations (taken by any node) kept for a duplicate publish, a retried request, to answer with. */
const keptOutcomes = 10_000;
/** The pause before a node whose apply failed for a reason of its own (see #apply) tries the operation again. */
const haltedRetryMs = 2_000;

/** The oldest nats-server GoDB runs on: the consumer API the client uses (named consumers) came with 2.9. */
export const minNatsVersion = [2, 9, 0] as const;

/**
 * Refuses a nats-server older than {@link minNatsVersion}: it would ignore or reject what the log asks of it
 * (consumers made by name, the stream's settings) in ways that surface only later.
 *
 * @example checkNatsVersion('2.9.10'); // passes; checkNatsVersion('2.8.4') throws a ConfigError
 */
export function checkNatsVersion(version: string | undefined): void {
  const parts = /^v?(\d+)\.(\d+)\.(\d+)/
    .exec(version ?? '')
    ?.slice(1)
    .map(Number);
  // The first part that differs decides (2.10 is newer than 2.9); no version at all counts as older.
  const order = parts
    ? minNatsVersion.reduce<number>((sign, min, i) => sign || Math.sign((parts[i] ?? 0) - min), 0)
    : -1;
  if (order < 0) {
    throw new ConfigError(
      `Cluster mode needs nats-server ${minNatsVersion.join('.')} or newer with JetStream; the server at NATS_URL reports ${version ?? 'no version'}. Upgrade it (Debian bookworm ships 2.9, trixie 2.10; 2.10+ with sync_interval: always also makes acknowledgements survive a power loss).`,
    );
  }
}

/** A request's Idempotency-Key, scoped, and how many operations the request has submitted so far. */
interface Idempotency {
  readonly scope: string;
  readonly key: string;
  submitted: number;
}

/** Why this node stopped applying the log: the operation it could not apply, and the failure. */
export interface Halt {
  readonly seq: number;
  readonly reason: string;
}

/**
 * The replicated log on NATS JetStream: operations are published to one file-backed stream (replicated on up to
 * three NATS servers) with their id as `Nats-Msg-Id`, and every node applies the stream in order through its own
 * ordered consumer, from the sequence its store recorded. A write answers once JetStream acknowledged it and this
 * node applied it (read-your-writes on the node that took it).
 *
 * @example
 *   const log = await NatsLog.open({ servers, nodeId: 'a', applier, clock, publishTimeoutMs: 5000, logger });
 *   engine.attachLog(log); … await log.close();
 */
export class NatsLog implements OperationLog, ClusterReads {
  readonly #nc: NatsConnection;
  readonly #js: JetStreamClient;
  readonly #options: NatsLogOptions;
  readonly #stream: string;
  readonly #subject: string;
  readonly #waiting = new Map<string, ((outcome: Outcome) => void)[]>();
  readonly #outcomes = new Map<string, Outcome>();
  #seqWaiters: { seq: number; resolve: () => void }[] = [];
  #applied: number;
  /** The highest sequence of the stream this node knows of (from messages' pending counts and acknowledgements). */
  #known = 0;
  #messages: ConsumerMessages | null = null;
  #jsm: JetStreamManager | null = null;
  /** Checks that the consumer makes progress while the stream is ahead (see #watch). */
  #watchdog: ReturnType<typeof setInterval> | null = null;
  #watched = { applied: -1, stalls: 0, busy: false };
  #loop: Promise<void> = Promise.resolve();
  #closed = false;
  /** Set while an operation failed here for a local reason: the consumer stopped before it, and retries. */
  #halted: Halt | null = null;
  /** Where this node started and what the log held then, until it serves (see startingUp() and serve()). */
  #startedAt: { from: number; target: number } | null = null;
  /** Resolves once this node applied what the log held when it started. */
  ready: Promise<void> = Promise.resolve();
  readonly #idempotency = new AsyncLocalStorage<Idempotency>();

  private constructor(nc: NatsConnection, options: NatsLogOptions) {
    this.#nc = nc;
    this.#js = jetstream(nc);
    this.#options = options;
    this.#stream = options.stream ?? defaultStream;
    this.#subject = `godb.ops.${this.#stream.toLowerCase()}`;
    this.#applied = options.applier.applied(this.#stream);
  }

  /**
   * Connects, makes sure the stream exists and starts applying. It answers at once: the node catches up with what
   * the log holds in the background (`ready`), and its API refuses requests until then (see startingUp()), while
   * health and readiness checks are answered (a node replaying a million operations is alive, not ready).
   */
  static async open(options: NatsLogOptions): Promise<NatsLog> {
    const nc = await connect({
      servers: [...options.servers],
      name: `godb-${options.nodeId}`,
      maxReconnectAttempts: -1,
      reconnectTimeWait: 250,
    });
    const log = new NatsLog(nc, options);
    try {
      checkNatsVersion(nc.info?.version);
      const jsm = await jetstreamManager(nc);
      log.#jsm = jsm;
      const last = await log.#ensureStream(jsm);
      log.#known = last;
      log.#startedAt = { from: log.#applied, target: last };
      log.#start();
      log.ready = log.waitFor(last);
    } catch (error) {
      await log.close();
      throw error;
    }
    return log;
  }

  /** The last sequence this node applied. */
  get applied(): number {
    return this.#applied;
  }

  /** The NATS connection, shared with the coordination in KV (progress, leases) and the cluster snapshots. */
  get connection(): NatsConnection {
    return this.#nc;
  }

  /** The stream this node applies. */
  get stream(): string {
    return this.#stream;
  }

  /** How many NATS servers NATS_URL names (buckets are replicated on up to three of them, as the stream). */
  get replicas(): number {
    return Math.min(3, this.#options.servers.length);
  }

  /** The version of the NATS server this node is connected to now. */
  get natsVersion(): string {
    return this.#nc.info?.version ?? 'unknown';
  }

  /** This node's progress, for /readyz and /metrics; `halted` while it cannot apply the next operation. */
  status(): {
    node: string;
    applied: number;
    lag: number;
    halted?: Halt;
    startingUp?: { applied: number; target: number; from: number };
  } {
    const startingUp = this.startingUp();
    return {
      node: this.#options.nodeId,
      applied: this.#applied,
      lag: Math.max(0, this.#known - this.#applied),
      ...(this.#halted && { halted: this.#halted }),
      ...(startingUp && { startingUp }),
    };
  }

  /** The stream's last sequence, as JetStream reports it now. */
  async lastSequence(): Promise<number> {
    const jsm = this.#jsm ?? (await jetstreamManager(this.#nc));
    return (await jsm.streams.info(this.#stream)).state.last_seq;
  }

  /** The stream's first and last sequences now (the first moves up when the log is truncated). */
  async bounds(): Promise<{ first: number; last: number }> {
    const jsm = this.#jsm ?? (await jetstreamManager(this.#nc));
    const { state } = await jsm.streams.info(this.#stream);
    return { first: state.first_seq, last: state.last_seq };
  }

  /**
   * Truncates the log: removes every operation below `seq` (JetStream purge with `seq`, which keeps `seq` and
   * after). Only the lease holder calls it, below what every live node and the latest verified snapshot hold.
   */
  async truncateBefore(seq: number): Promise<number> {
    const jsm = this.#jsm ?? (await jetstreamManager(this.#nc));
    return (await jsm.streams.purge(this.#stream, { seq })).purged;
  }

  position(): number {
    return this.#applied;
  }

  startingUp(): { applied: number; target: number; from: number } | undefined {
    const started = this.#startedAt;
    return started ? { applied: this.#applied, ...started } : undefined;
  }

  /** The node serves its API: called once it caught up (`ready`) and finished its start (the super admin). */
  serve(): void {
    this.#startedAt = null;
  }

  /**
   * Resolves once this node applied what `want` asks (a sequence, or everything the stream holds now), within
   * NATS_PUBLISH_TIMEOUT_MS; else CLUSTER_LAGGING. A sequence beyond the stream's last is refused (it would never
   * come, or not from this cluster).
   */
  async catchUp(want: Consistency, signal?: AbortSignal): Promise<void> {
    let wanted = want.minSeq ?? 0;
    if (want.strong || wanted > this.#known) {
      const last = await this.lastSequence().catch((error: unknown) => {
        throw createError('CLUSTER_UNAVAILABLE', {
          timeout_ms: this.#options.publishTimeoutMs,
          reason: `the stream's last sequence could not be read: ${(error as Error).message}`,
        });
      });
      this.#known = Math.max(this.#known, last);
      if (wanted > last) {
        throw createError(
          'VALIDATION_FAILED',
          { detail: `X-GoDB-Min-Seq ${wanted} is beyond the log's last sequence, ${last}` },
          { field: 'headers.x-godb-min-seq' },
        );
      }
      if (want.strong) wanted = Math.max(wanted, last);
    }
    if (this.#applied >= wanted) return;
    const waiter: { seq: number; resolve: () => void } = { seq: wanted, resolve: () => undefined };
    const reached = new Promise<boolean>((resolve) => {
      waiter.resolve = () => resolve(true);
      this.#seqWaiters.push(waiter);
    });
    const bound = AbortSignal.any([AbortSignal.timeout(this.#options.publishTimeoutMs), ...(signal ? [signal] : [])]);
    const ended = new Promise<boolean>((resolve) =>
      bound.addEventListener('abort', () => resolve(false), { once: true }),
    );
    if (await Promise.race([reached, ended])) return;
    this.#seqWaiters = this.#seqWaiters.filter((w) => w !== waiter);
    signal?.throwIfAborted();
    throw createError('CLUSTER_LAGGING', {
      applied: this.#applied,
      wanted,
      timeout_ms: this.#options.publishTimeoutMs,
      detail: 'Retry, or read from another node.',
    });
  }

  /** Resolves once this node applied `seq`. */
  waitFor(seq: number): Promise<void> {
    if (this.#applied >= seq) return Promise.resolve();
    return new Promise((resolve) => this.#seqWaiters.push({ seq, resolve }));
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
   * Publishes a decided operation and answers its outcome here. Publishing the same operation again (a retry after
   * a lost acknowledgement) is applied once: JetStream drops the second copy, and this answers the first's outcome.
   */
  async publish(op: Operation): Promise<unknown> {
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
    // While NATS elects a new stream leader (a NATS node died), publishes fail or time out: the same message again,
    // with the same id, until the deadline; JetStream stores it once however many attempts reached it.
    const deadline = performance.now() + this.#options.publishTimeoutMs;
    let seq = 0;
    let duplicate = false;
    for (let attempt = 1; ; attempt += 1) {
      const remaining = Math.round(deadline - performance.now());
      try {
        const ack = await this.#js.publish(this.#subject, data, { msgID: op.id, timeout: Math.max(1, remaining) });
        this.#known = Math.max(this.#known, ack.seq);
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
    if (!kept && duplicate && this.#applied >= seq && !this.#outcomes.has(op.id)) {
      // A retry of an operation this node applied before it kept outcomes (it restarted since, or forgot it).
      forget();
      throw createError('IDEMPOTENCY_KEY_REPLAYED', { seq });
    }
    const settled = await this.#settled(outcome, seq, forget);
    if ('error' in settled) throw settled.error;
    return settled.value;
  }

  /**
   * The outcome of the operation stored at `seq`, once this node applied it, within NATS_PUBLISH_TIMEOUT_MS: a
   * node whose consumer is stuck answers 503 CLUSTER_LAGGING rather than hold the request for ever (the operation
   * is in the log all the same, and every node applies it).
   */
  async #settled(outcome: Promise<Outcome> | Outcome, seq: number, forget: () => void): Promise<Outcome> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<null>((resolve) => {
      timer = setTimeout(() => resolve(null), this.#options.publishTimeoutMs);
    });
    const settled = await Promise.race([outcome, late]).finally(() => clearTimeout(timer));
    if (settled) return settled;
    forget();
    throw createError('CLUSTER_LAGGING', {
      applied: this.#applied,
      wanted: seq,
      timeout_ms: this.#options.publishTimeoutMs,
      detail: `The write is stored in the replicated log at sequence ${seq}, and every node applies it: read it on another node with X-GoDB-Min-Seq: ${seq}, or send the request again with the same Idempotency-Key (it is applied once).${this.#halted ? ` This node stopped at sequence ${this.#halted.seq}: ${this.#halted.reason}.` : ''}`,
    });
  }

  async close(): Promise<void> {
    this.#closed = true;
    if (this.#watchdog) clearInterval(this.#watchdog);
    this.#messages?.stop();
    await this.#loop.catch(() => undefined);
    if (!this.#nc.isClosed()) await this.#nc.close();
  }

  /** Makes sure the stream exists and has a leader; answers its last sequence. */
  async #ensureStream(jsm: JetStreamManager): Promise<number> {
    let info: StreamInfo | null = null;
    try {
      info = await jsm.streams.info(this.#stream);
    } catch {
      // Not there yet: every node may try at once; creating it with the same settings is idempotent.
    }
    let current =
      info ??
      (await jsm.streams.add({
        name: this.#stream,
        subjects: [this.#subject],
        storage: StorageType.File,
        num_replicas: Math.min(3, this.#options.servers.length),
        duplicate_window: nanos(duplicateWindowMs),
        max_msg_size: maxOperationBytes,
      }));
    // A stream just made elects its leader first; consumers made before that time out. A bound, not a timing.
    for (let attempt = 0; current.cluster && !current.cluster.leader && attempt < 100; attempt += 1) {
      await sleep(retryPauseMs);
      const before = current;
      current = await jsm.streams.info(this.#stream).catch(() => before);
    }
    const last = current.state.last_seq;
    if (this.#applied > last) {
      throw new ConfigError(
        `Cluster mode: this node applied the log up to ${this.#applied}, but stream ${this.#stream} on NATS_URL ends at ${last}: it belongs to another cluster, or NATS lost its data. Point NATS_URL at this node's cluster, or start the node on an empty DATA_DIR.`,
      );
    }
    return last;
  }

  /**
   * Applies the stream in order from the next sequence this node has not applied, for as long as it runs. A
   * consumer that stops (its NATS server died, the stream was electing a leader) is made again from the next
   * unapplied sequence: applying an operation twice is impossible (the store records the applied sequence), and
   * skipping one is too (each new consumer starts right after it).
   */
  #start(): void {
    this.#watchdog = setInterval(() => void this.#watch(), watchdogMs);
    this.#watchdog.unref();
    this.#loop = (async () => {
      while (!this.#closed) {
        try {
          await this.#consume();
        } catch (error) {
          if (!this.#closed) this.#options.logger.error({ err: error }, 'cluster mode: the log consumer stopped');
        }
        if (!this.#closed) await sleep(this.#halted ? haltedRetryMs : retryPauseMs);
      }
    })();
  }

  /**
   * The client's own recovery does not cover every failure (a consumer whose server died while the stream elected a
   * leader has been seen to stay silent without reporting missed heartbeats): when the stream is ahead of this node
   * and nothing was applied for two checks in a row, the consumer is stopped, and #start makes a new one.
   */
  async #watch(): Promise<void> {
    // A halted node is behind on purpose: #start retries its operation; a new consumer would change nothing.
    if (this.#watched.busy || this.#closed || this.#halted) return;
    this.#watched.busy = true;
    try {
      const last = await this.lastSequence();
      this.#known = Math.max(this.#known, last);
      const stalled = this.#applied < last && this.#applied === this.#watched.applied;
      this.#watched.stalls = stalled ? this.#watched.stalls + 1 : 0;
      this.#watched.applied = this.#applied;
      if (this.#watched.stalls >= 2) {
        this.#watched.stalls = 0;
        this.#options.logger.error(
          { applied: this.#applied, last },
          'cluster mode: the log consumer made no progress; making a new one',
        );
        this.#messages?.stop();
      }
    } catch {
      // NATS cannot answer now (no majority): nothing to compare; the next check tries again.
    } finally {
      this.#watched.busy = false;
    }
  }

  async #consume(): Promise<void> {
    const consumer = await this.#js.consumers.get(this.#stream, {
      deliver_policy: DeliverPolicy.StartSequence,
      opt_start_seq: this.#applied + 1,
    });
    // Pulls expire every 5 s rather than 30, so missed heartbeats (every 2.5 s) show a dead server in seconds.
    const messages = await consumer.consume({ expires: consumeExpiresMs });
    this.#messages = messages;
    if (this.#closed) messages.stop();
    void (async () => {
      for await (const status of messages.status()) {
        // Two heartbeats missed: this consumer is not being fed; stop it, and #start makes a new one.
        if (status.type === 'heartbeats_missed' && status.count >= 2) messages.stop();
      }
    })().catch(() => undefined);
    for await (const message of messages) {
      this.#known = Math.max(this.#known, message.seq + message.info.pending);
      if (message.seq <= this.#applied) continue;
      if (message.seq > this.#applied + 1) {
        // The log was truncated past this node (it counted as gone, see CLUSTER_NODE_GONE_S): what it misses is only
        // in a snapshot now. It stops rather than skip operations; restarted, it restores the latest snapshot.
        const reason = `the log was truncated past this node: it applied ${this.#applied} and the log now starts at ${message.seq}; restart the node to restore the latest cluster snapshot`;
        if (this.#halted?.reason !== reason) this.#options.logger.error({ applied: this.#applied }, reason);
        this.#halted = { seq: this.#applied + 1, reason };
        messages.stop();
        return;
      }
      if (!(await this.#apply(message.seq, decodeOperation(message.data)))) {
        // Never past an operation this node could not apply: the consumer stops, and #start makes a new one from
        // that same operation after a pause, until it applies (the disk has room again).
        messages.stop();
        return;
      }
    }
  }

  /** Applies one operation of the log; false (and the node halted) when it failed for a reason of this node's. */
  async #apply(seq: number, op: Operation): Promise<boolean> {
    let applied;
    try {
      await this.#options.applier.prepare(this.#stream, seq, op);
      applied = this.#options.applier.apply(this.#stream, seq, op);
    } catch (error) {
      const reason = (error as Error).message;
      if (this.#halted?.seq !== seq || this.#halted.reason !== reason) {
        this.#options.logger.error(
          { err: error, seq, operation: op.kind, id: op.id },
          'cluster mode: an operation of the log failed on this node only; it stops here and tries again',
        );
      }
      this.#halted = { seq, reason };
      return false;
    }
    this.#halted = null;
    this.#applied = Math.max(this.#applied, seq);
    if (applied) {
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
    const done = this.#seqWaiters.filter((w) => w.seq <= this.#applied);
    if (done.length === 0) return true;
    this.#seqWaiters = this.#seqWaiters.filter((w) => w.seq > this.#applied);
    for (const waiter of done) waiter.resolve();
    return true;
  }
}
