import { jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import type { KV } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';
import { openBucket } from './lease.js';
import { retryAtStart, type StartLogger } from './start-retries.js';

/** The KV bucket where every node reports how far it applied the log: key = NODE_ID. */
export const progressBucket = 'godb-progress';

/** One node's report. */
export interface NodeProgress {
  readonly node: string;
  /** Where the node serves its API (PUBLIC_URL, or http://HOST:PORT), for GET /api/v1/cluster. */
  readonly address?: string;
  /**
   * The last sequence it applied of each shard, index = shard (or, while `restoring`, the sequences of the snapshot
   * it restores).
   */
  readonly applied: readonly number[];
  /** Wall-clock milliseconds of the report (for people reading the bucket; expiry is the bucket's TTL). */
  readonly at: number;
  /** The last sequence it applied of each collection shard subject it holds (decision 0082). */
  readonly subjects?: Readonly<Record<string, number>>;
  /** True while the node restores a snapshot: it needs the log from `applied` + 1 on. */
  readonly restoring?: boolean;
  /** While `restoring`: the id of the snapshot it reads (its archive is kept meanwhile). */
  readonly snapshot?: string;
}

export interface ProgressOptions {
  readonly node: string;
  /** Where this node serves its API, reported with its progress. */
  readonly address?: string;
  /** A node not heard from for this long counts as gone: its key expires (the bucket's TTL). */
  readonly goneAfterMs: number;
  readonly replicas: number;
  /** What to report now. */
  readonly report: () => {
    applied: readonly number[];
    subjects?: Readonly<Record<string, number>>;
    restoring?: boolean;
  };
  /** Where retries at start are told (see retryAtStart). */
  readonly logger: StartLogger;
}

/**
 * Progress of every node in JetStream KV (`godb-progress`): each node puts its applied sequence of every shard under its NODE_ID
 * every few seconds (a sixth of the gone-after time, at most 5 s); the bucket's TTL removes the key of a node that
 * stopped reporting, so {@link ClusterProgress.live} lists only the nodes heard from within that time. A shard is
 * never truncated past the slowest of them on that shard.
 *
 * @example
 *   const progress = await ClusterProgress.start(nc, { node: 'a', goneAfterMs: 900_000, replicas: 3, report });
 *   Math.min(...(await progress.live()).map((p) => p.applied[3] ?? 0)); // the slowest on shard 3
 */
export class ClusterProgress {
  readonly #kv: KV;
  readonly #jsm: JetStreamManager;
  readonly #options: ProgressOptions;
  #timer: ReturnType<typeof setInterval> | null = null;
  #busy: Promise<void> = Promise.resolve();

  private constructor(kv: KV, jsm: JetStreamManager, options: ProgressOptions) {
    this.#kv = kv;
    this.#jsm = jsm;
    this.#options = options;
  }

  static async open(nc: NatsConnection, options: ProgressOptions): Promise<ClusterProgress> {
    return new ClusterProgress(
      await openBucket(nc, progressBucket, { ttlMs: options.goneAfterMs, ...options }),
      await jetstreamManager(nc),
      options,
    );
  }

  /** Reports now (retried while JetStream does not answer), then every sixth of the gone-after time (at most every 5 s). */
  async start(): Promise<void> {
    await retryAtStart(
      `reporting this node's progress to ${progressBucket}`,
      () => this.report(),
      this.#options.logger,
    );
    this.#timer = setInterval(() => void this.report().catch(() => undefined), this.intervalMs);
    this.#timer.unref();
  }

  /** Puts this node's progress now (calls never overlap). */
  report(): Promise<void> {
    this.#busy = this.#busy
      .catch(() => undefined)
      .then(async () => {
        const now = this.#options.report();
        const { node, address } = this.#options;
        const value: NodeProgress = { node, ...(address !== undefined && { address }), ...now, at: Date.now() };
        await this.#kv.put(this.#options.node, JSON.stringify(value));
      });
    return this.#busy;
  }

  /**
   * Every node heard from within the gone-after time. The keys are the subjects the bucket's stream holds now, read
   * in one request: the KV client's `keys()` runs a consumer that counts the messages pending when it starts and
   * waits for them, and hung (until a heartbeat that did not come) when a key expired in between.
   */
  async live(): Promise<NodeProgress[]> {
    const prefix = `$KV.${progressBucket}.`;
    const info = await this.#jsm.streams.info(`KV_${progressBucket}`, { subjects_filter: `${prefix}>` });
    const found: NodeProgress[] = [];
    for (const subject of Object.keys(info.state.subjects ?? {})) {
      const entry = await this.#kv.get(subject.slice(prefix.length));
      if (entry?.operation === 'PUT') found.push(entry.json<NodeProgress>());
    }
    return found;
  }

  /** How often this node reports (a sixth of the gone-after time, at most every 5 s). */
  get intervalMs(): number {
    return Math.max(100, Math.min(5_000, Math.floor(this.#options.goneAfterMs / 6)));
  }

  stop(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    return this.#busy.catch(() => undefined);
  }
}
