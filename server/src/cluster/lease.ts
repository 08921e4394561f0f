import { jetstreamManager } from '@nats-io/jetstream';
import { Kvm, type KV } from '@nats-io/kv';
import { millis, nanos, type NatsConnection } from '@nats-io/transport-node';
import { retryAtStart, type StartLogger, type ClusterLogger } from './start-retries.js';

/** The KV bucket holding every singleton job's lease, one key per job. */
export const leaseBucket = 'godb-leases';

export interface LeaseOptions {
  /** The job the lease is for (the key in {@link leaseBucket}), e.g. `snapshots`. */
  readonly job: string;
  /** This node's name (NODE_ID): what the key holds while it leads. */
  readonly holder: string;
  /**
   * How long a lease lives unless renewed: the bucket's TTL, so NATS itself removes the key of a holder that stopped
   * renewing, with the NATS server's clock; it is renewed every third of it.
   */
  readonly ttlMs: number;
  /** Replicas of the bucket: min(3, NATS servers). */
  readonly replicas: number;
  readonly logger: ClusterLogger;
  /** Called when this node becomes the holder (with its fencing token) and when it stops being it (null). */
  readonly onChange?: (token: number | null) => void;
}

/** What the lease key holds. */
interface LeaseValue {
  readonly holder: string;
  readonly at: number;
}

/**
 * Opens (or makes) a KV bucket whose keys NATS removes `ttlMs` after their last write. A bucket made earlier with
 * another TTL (the setting changed) is given this one: NATS keeps a bucket's settings as they were made. Retried
 * while JetStream does not answer (see retryAtStart).
 */
export function openBucket(
  nc: NatsConnection,
  name: string,
  options: { ttlMs: number; replicas: number; logger: StartLogger },
): Promise<KV> {
  return retryAtStart(
    `opening the KV bucket ${name}`,
    async () => {
      const kv = await new Kvm(nc).create(name, { ttl: options.ttlMs, replicas: options.replicas, history: 1 });
      const { streamInfo } = await kv.status();
      if (millis(streamInfo.config.max_age) !== options.ttlMs) {
        const jsm = await jetstreamManager(nc);
        await jsm.streams.update(streamInfo.config.name, {
          max_age: nanos(options.ttlMs),
          // JetStream refuses a duplicate window longer than the streams' maximum age.
          duplicate_window: nanos(Math.min(options.ttlMs, 120_000)),
        });
      }
      return kv;
    },
    options.logger,
  );
}

/** The TTL a bucket has now, in milliseconds (another node may have set another one). */
async function bucketTtl(kv: KV): Promise<number> {
  return millis((await kv.status()).streamInfo.config.max_age);
}

/**
 * A lease on a singleton job in JetStream KV: compare-and-set on the key's revision, so at most one node holds it.
 * The holder renews it every third of its TTL with `update(key, value, revision)`; a renewal refused (another node
 * took the key after it expired) or not acknowledged for a whole TTL ends the holding at once. Contenders try to
 * `create` the key at the same pace; it succeeds only once the key is gone (expired with the bucket's TTL, or
 * released by a holder that stopped). The revision at which a node took the lease is its fencing token: revisions
 * are the bucket stream's sequences, so every new holder's token is larger than every earlier one's.
 *
 * @example
 *   const lease = await Lease.start(nc, { job: 'snapshots', holder: 'a', ttlMs: 15000, replicas: 3, logger });
 *   if (lease.token !== null) { … work, fenced by lease.token … }
 *   await lease.stop();
 */
export class Lease {
  readonly #kv: KV;
  readonly #options: LeaseOptions;
  #token: number | null = null;
  #revision = 0;
  /** performance.now() when the last successful renewal was sent: the lease surely lives until then + TTL. */
  #renewedAt = 0;
  #timer: ReturnType<typeof setInterval> | null = null;
  #busy: Promise<void> = Promise.resolve();
  #stopped = false;
  /**
   * The shorter of this node's TTL and the bucket's, read before each attempt: a node configured with a longer TTL
   * than the bucket's must not believe it holds a key NATS already removed.
   */
  #ttlMs: number;

  private constructor(kv: KV, options: LeaseOptions) {
    this.#kv = kv;
    this.#options = options;
    this.#ttlMs = options.ttlMs;
  }

  /** Opens the bucket and starts contending at once (the first attempt is done when this resolves). */
  static async start(nc: NatsConnection, options: LeaseOptions): Promise<Lease> {
    const kv = await openBucket(nc, leaseBucket, options);
    const lease = new Lease(kv, options);
    await lease.tick();
    lease.#timer = setInterval(() => void lease.tick(), Math.max(100, Math.floor(options.ttlMs / 3)));
    lease.#timer.unref();
    return lease;
  }

  /**
   * The fencing token while this node holds the lease (the revision it took it at), else null. Holding also ends
   * when the last renewal acknowledged was sent a TTL ago: NATS counts the TTL from when it stored that renewal,
   * which is later, so this node gives the lease up before anyone else can take it.
   */
  get token(): number | null {
    if (this.#token !== null && performance.now() - this.#renewedAt >= this.#ttlMs) this.#lose('not renewed');
    return this.#token;
  }

  /** Who holds the lease now, as the bucket says (null: nobody). */
  async holder(): Promise<string | null> {
    const entry = await this.#kv.get(this.#options.job);
    if (!entry || entry.operation !== 'PUT') return null;
    return (entry.json<LeaseValue>() as LeaseValue).holder;
  }

  /** One renewal or one attempt to take the lease; calls never overlap. */
  tick(): Promise<void> {
    this.#busy = this.#busy.then(() => this.#tick());
    return this.#busy;
  }

  async #tick(): Promise<void> {
    if (this.#stopped) return;
    const sentAt = performance.now();
    try {
      this.#ttlMs = Math.min(this.#options.ttlMs, await bucketTtl(this.#kv));
    } catch {
      // NATS cannot answer now: the renewal below fails too, and the holding ends once a TTL passed.
    }
    const value = JSON.stringify({ holder: this.#options.holder, at: Date.now() } satisfies LeaseValue);
    if (this.token !== null) {
      try {
        this.#revision = await this.#kv.update(this.#options.job, value, this.#revision);
        this.#renewedAt = sentAt;
      } catch (error) {
        // A wrong last sequence: the key changed (it expired and another node took it). Anything else (no NATS
        // majority) is tried again; the holding ends by itself once a TTL passed without a renewal.
        if (/wrong last sequence/i.test((error as Error).message)) this.#lose('taken by another node');
      }
      return;
    }
    try {
      const revision = await this.#kv.create(this.#options.job, value);
      this.#revision = revision;
      this.#renewedAt = sentAt;
      this.#token = revision;
      this.#options.logger.info({ job: this.#options.job, token: revision }, 'cluster mode: this node took the lease');
      this.#options.onChange?.(revision);
    } catch {
      // Held by another node (or NATS cannot answer): the next tick tries again.
    }
  }

  #lose(why: string): void {
    const token = this.#token;
    this.#token = null;
    this.#options.logger.info({ job: this.#options.job, token, why }, 'cluster mode: this node lost the lease');
    this.#options.onChange?.(null);
  }

  /** Stops contending; a holder releases the key (if it still holds it), so another node takes over at once. */
  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer) clearInterval(this.#timer);
    await this.#busy;
    if (this.#token === null) return;
    const revision = this.#revision;
    this.#token = null;
    this.#options.onChange?.(null);
    await this.#kv.delete(this.#options.job, { previousSeq: revision }).catch(() => undefined);
  }
}
