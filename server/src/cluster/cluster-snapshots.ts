import { randomUUID } from 'node:crypto';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Kvm, type KV } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';
import type { ObjectStore } from '../engine/files/object-store.js';
import { unpackSnapshot } from '../engine/snapshots/restore.js';
import type { SnapshotManifest, Snapshots } from '../engine/snapshots/snapshots.js';
import { retryAtStart, type StartLogger } from './start-retries.js';

/** The KV bucket of the cluster's own records (no TTL): the verified snapshots under {@link snapshotsKey}. */
export const clusterBucket = 'godb-cluster';
const snapshotsKey = 'snapshots';
/** How many verified cluster snapshots are kept: a node restoring the newest still finds it while one more is made. */
export const keptSnapshots = 2;

/** A cluster snapshot whose archive was read back from the store and matched every checksum of its manifest. */
export interface VerifiedSnapshot {
  readonly id: string;
  /** The operations its rows include, over every shard (the sum of `shards`). */
  readonly seq: number;
  /** The last sequence of each shard its rows include (index = shard): a node restoring it replays each after it. */
  readonly shards: readonly number[];
  readonly bytes: number;
  /** Unix seconds of the snapshot's consistent point. */
  readonly created_at: number;
  /** The node that took it, and its lease's fencing token then. */
  readonly node: string;
  readonly token: number;
}

export interface ClusterSnapshotsOptions {
  /** Whole-node snapshots of this node, written to the shared store (the NATS object store, or the S3 area). */
  readonly snapshots: Snapshots;
  readonly store: ObjectStore;
  /** How many shard streams the log has (a snapshot records the applied sequence of each). */
  readonly shardCount: number;
  /** This node's data folder: snapshots read back for verification are unpacked under it, then removed. */
  readonly dataDir: string;
  readonly node: string;
  /** Where retries at start are told (see retryAtStart). */
  readonly logger: StartLogger;
}

/**
 * The cluster's snapshots: whole-node snapshots (SQLite online backup, index files, manifest) that the lease holder
 * takes and stores where every node can fetch them, each recording the sequence of every shard it includes. A snapshot is
 * verified once its archive was read back from the store and every file matched its manifest's size and SHA-256;
 * only verified ones are listed (in KV `godb-cluster`, key `snapshots`, newest first, the last {@link keptSnapshots})
 * and only they bound truncation and serve catch-up. Older archives are deleted from the store.
 *
 * @example const taken = await clusterSnapshots.take(lease.token); // { id, seq, … }
 */
export class ClusterSnapshots {
  readonly #kv: KV;
  readonly #options: ClusterSnapshotsOptions;

  private constructor(kv: KV, options: ClusterSnapshotsOptions) {
    this.#kv = kv;
    this.#options = options;
  }

  static async open(nc: NatsConnection, replicas: number, options: ClusterSnapshotsOptions): Promise<ClusterSnapshots> {
    const kv = await retryAtStart(
      `opening the KV bucket ${clusterBucket}`,
      () => new Kvm(nc).create(clusterBucket, { replicas, history: 1 }),
      options.logger,
    );
    return new ClusterSnapshots(kv, options);
  }

  /** The KV bucket `godb-cluster` (no TTL), where the cluster keeps its other records too (kept-archives.ts). */
  get records(): KV {
    return this.#kv;
  }

  get store(): ObjectStore {
    return this.#options.store;
  }

  /**
   * The verified snapshots, newest first: those of this log's shards (a snapshot listed by the single-stream version
   * of GoDB, without `shards`, is not one of them).
   */
  async verified(): Promise<VerifiedSnapshot[]> {
    const entry = await this.#kv.get(snapshotsKey);
    const listed = entry?.operation === 'PUT' ? entry.json<VerifiedSnapshot[]>() : [];
    return listed.filter((s) => Array.isArray(s.shards) && s.shards.length === this.#options.shardCount);
  }

  /**
   * Takes a whole-node snapshot into the shared store, reads it back to verify it, and lists it as the newest
   * verified one (compare-and-set on the list's revision, only while `stillHolding()`), then deletes archives no
   * longer listed, except those whose ids are in `restoring` (a node restoring that snapshot reads it now). A
   * snapshot that fails verification is deleted and the error thrown; the list is unchanged.
   */
  async take(
    token: number,
    stillHolding: () => boolean,
    restoring: ReadonlySet<string> = new Set(),
  ): Promise<VerifiedSnapshot> {
    const { snapshots, shardCount, node } = this.#options;
    const manifest = await snapshots.create(snapshots.newId());
    try {
      await this.verify(manifest.id);
    } catch (error) {
      await snapshots.delete(manifest.id).catch(() => undefined);
      throw error;
    }
    const shards = Array.from({ length: shardCount }, (_, i) => manifest.cluster_applied?.[String(i)] ?? 0);
    const taken: VerifiedSnapshot = {
      id: manifest.id,
      seq: shards.reduce((sum, seq) => sum + seq, 0),
      shards,
      bytes: manifest.bytes,
      created_at: manifest.created_at,
      node,
      token,
    };
    const entry = await this.#kv.get(snapshotsKey);
    const before = entry?.operation === 'PUT' ? entry.json<VerifiedSnapshot[]>() : [];
    if (!stillHolding()) {
      await snapshots.delete(manifest.id).catch(() => undefined);
      throw new Error('the lease was lost while the snapshot was taken; it was not listed');
    }
    const kept = [taken, ...before].slice(0, keptSnapshots);
    const value = JSON.stringify(kept);
    if (entry) await this.#kv.update(snapshotsKey, value, entry.revision);
    else await this.#kv.create(snapshotsKey, value);
    // Archives no longer listed (older ones, or one a holder that died left unlisted) leave the store.
    const listed = new Set([...kept.map((s) => s.id), ...restoring]);
    const stale = (await this.#options.store.list()).filter((key) => !listed.has(key.replace(/\..*$/, '')));
    await this.#options.store.delete(stale);
    return taken;
  }

  /** Reads the stored archive back and checks every file against its manifest (SNAPSHOT_CORRUPT otherwise). */
  async verify(id: string): Promise<SnapshotManifest> {
    const staging = join(this.#options.dataDir, 'snapshots', `.verify-${randomUUID()}`);
    mkdirSync(staging, { recursive: true });
    try {
      const archive = await this.#options.snapshots.archive(id);
      return await unpackSnapshot(archive.body, staging);
    } finally {
      rmSync(staging, { recursive: true, force: true });
    }
  }
}
