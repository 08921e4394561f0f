import { createError } from '@godb/contract';
import type { JetStreamManager } from '@nats-io/jetstream';
import { Kvm, type KV } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';
import { ConfigError } from '../../config/env.js';
import { proposedShard } from '../../engine/operations/operation-shard.js';
import { retryAtStart, type StartLogger } from '../start-retries.js';

/** The KV bucket mapping tenant → shard (fixed on the tenant's first write), and the shard count under one key. */
export const shardsBucket = 'godb-shards';
const shardCountKey = 'shard-count';

/**
 * Which shard a tenant's operations go to, as the KV bucket `godb-shards` fixes it on the tenant's first write (see
 * operation-shard.ts), and the shard count recorded there for the cluster's life.
 *
 * @example
 *   const placement = new Placement(16, 5000);
 *   await placement.open(nc, jsm, 3, logger);
 *   await placement.shardOf('acme', true); // 5, once and for all
 */
export class Placement {
  readonly #count: number;
  readonly #timeoutMs: number;
  /** Tenant → shard, as `godb-shards` holds it (fixed for a tenant's life): read once, or learnt from applied ops. */
  readonly #tenantShards = new Map<string, number>();
  #kv: KV | null = null;
  #jsm: JetStreamManager | null = null;

  /** `count`: the log's shard streams; `timeoutMs`: NATS_PUBLISH_TIMEOUT_MS, which a failure reports. */
  constructor(count: number, timeoutMs: number) {
    this.#count = count;
    this.#timeoutMs = timeoutMs;
  }

  /**
   * Opens (or makes) the bucket, replicated as the streams, and checks the shard count it records; each step is
   * retried, bounded, while JetStream does not answer (see retryAtStart).
   */
  async open(nc: NatsConnection, jsm: JetStreamManager, replicas: number, logger: StartLogger): Promise<void> {
    const kv = await retryAtStart(
      `opening the KV bucket ${shardsBucket}`,
      () => new Kvm(nc).create(shardsBucket, { replicas, history: 1 }),
      logger,
    );
    [this.#kv, this.#jsm] = [kv, jsm];
    await retryAtStart(`reading the shard count in ${shardsBucket}`, () => this.#checkShardCount(kv), logger);
  }

  /** The shard of `tenantId` as this node knows it (read, or learnt from the operations it applied), or undefined. */
  known(tenantId: string): number | undefined {
    return this.#tenantShards.get(tenantId);
  }

  /** Records that `tenantId`'s data is on `shard` (an operation of it was applied there). */
  learn(tenantId: string, shard: number): void {
    this.#tenantShards.set(tenantId, shard);
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
  async shardOf(tenantId: string, create: boolean): Promise<number | null> {
    const cached = this.#tenantShards.get(tenantId);
    if (cached !== undefined) return cached;
    if (!this.#kv || !this.#jsm) throw new Error('the log is not open');
    const kv = this.#kv;
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
        const proposal = proposedShard(tenantId, this.#count);
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
      if (!Number.isInteger(shard) || shard < 0 || shard >= this.#count) {
        throw new Error(`the shard map names shard ${shard} for this tenant; the log has ${this.#count}`);
      }
      this.#tenantShards.set(tenantId, shard);
      return shard;
    } catch (error) {
      throw createError('CLUSTER_UNAVAILABLE', {
        timeout_ms: this.#timeoutMs,
        reason: `the tenant's shard could not be read from the KV bucket ${shardsBucket}: ${(error as Error).message}`,
      });
    }
  }

  /**
   * The shard count is fixed for a cluster's life (a tenant's shard is a number in the map): the first node records
   * it in `godb-shards`; a node configured with another count refuses to start.
   */
  async #checkShardCount(kv: KV): Promise<void> {
    const count = this.#count;
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
}

/** The key of a tenant in `godb-shards`: KV keys take few characters, tenant ids any. */
const placementKey = (tenantId: string) => `tenant.${Buffer.from(tenantId).toString('base64url') || '_'}`;
