import { existsSync, mkdirSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { jetstreamManager } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import { connect } from '@nats-io/transport-node';
import { ConfigError } from '../config/env.js';
import { appliedOnDisk, dropNodeLocalRows } from '../engine/operations/adopted-snapshot-rows.js';
import type { ObjectStore } from '../engine/files/object-store.js';
import { restoreSnapshot } from '../engine/snapshots/restore.js';
import { archiveKey } from '../engine/snapshots/snapshots.js';
import { clusterBucket, type VerifiedSnapshot } from './cluster-snapshots.js';
import { shardStream } from '../engine/operations/operation-shard.js';
import { NatsObjectStore, snapshotBucket } from './nats-object-store.js';
import { checkNatsServers } from './nats-version.js';
import { progressBucket, type NodeProgress } from './progress.js';
import { retryAtStart, type ClusterLogger } from './start-retries.js';

export interface SnapshotCatchUpOptions {
  readonly servers: readonly string[];
  readonly nodeId: string;
  readonly dataDir: string;
  /** How many shard streams the log has (CLUSTER_SHARDS). */
  readonly shards: number;
  /** The shared store of cluster snapshots when it is S3; null: the JetStream object store. */
  readonly store: ObjectStore | null;
  /** Where the snapshot's uploaded files go (the node's file store). */
  readonly files: ObjectStore;
  /** NATS_SYNC_ALWAYS: every NATS server must be 2.10+ (checked here, at the node's first contact with NATS). */
  readonly syncAlways: boolean;
  /** CLUSTER_NODE_GONE_S in milliseconds: the TTL of the progress bucket, should this node be the one to make it. */
  readonly goneAfterMs: number;
  /** Told what is restored, as it starts (for the logs and /readyz). */
  readonly onRestoring?: (snapshot: VerifiedSnapshot) => void;
  readonly logger: ClusterLogger;
}

/** What a node restored before it opened its store. */
export interface RestoredSnapshot {
  readonly id: string;
  /** The operations it includes, over every shard (the sum of `shards`). */
  readonly seq: number;
  /** The last sequence of each shard it includes (index = shard). */
  readonly shards: readonly number[];
  /** Where the node's previous data went (kept for the operator), when it had any. */
  readonly previousData?: string;
}

/**
 * Catch-up from a cluster snapshot, run before the engine opens the data folder. A node restores the newest
 * verified cluster snapshot when the log no longer holds what it needs (its applied sequence + 1 of some shard is below
 * that shard's first: it was truncated while the node was away, or gone) or when it has no store at all (new or wiped)
 * and a snapshot exists (faster than replaying the whole log). It first reports the snapshot's sequence as its
 * progress, renewed until the restore ends, so the log is not truncated past it meanwhile (nor that snapshot's
 * archive deleted); a previous store is moved aside into `DATA_DIR/replaced-<time>/`, never deleted; the archive's
 * checksums are checked before anything is moved into place (SNAPSHOT_CORRUPT: the next kept snapshot is tried); the
 * taking node's own rows are dropped (see dropNodeLocalRows). The node then replays each shard after the snapshot's sequence of it as usual.
 *
 * @example const restored = await catchUpFromSnapshot({ servers, nodeId, dataDir, store: null, files, … });
 */
export async function catchUpFromSnapshot(options: SnapshotCatchUpOptions): Promise<RestoredSnapshot | null> {
  const nc = await connect({ servers: [...options.servers], name: `godb-${options.nodeId}-catch-up` });
  try {
    // Before anything is restored: a node refused for its NATS servers changes nothing in its data folder.
    await checkNatsServers(nc, { servers: options.servers, syncAlways: options.syncAlways, logger: options.logger });
    const found = await retryAtStart(
      'listing the shard streams',
      async () => {
        const jsm = await jetstreamManager(nc);
        const listed = new Map<string, number>();
        for await (const info of jsm.streams.list('godb.ops.*')) listed.set(info.config.name, info.state.first_seq);
        return listed;
      },
      options.logger,
    );
    const firsts: number[] = [];
    for (let shard = 0; shard < options.shards; shard += 1) {
      const first = found.get(shardStream(shard));
      if (first === undefined) return null; // no log yet (or not all of it): nothing to catch up with
      firsts.push(first);
    }
    const hasStore = existsSync(join(options.dataDir, 'godb.sqlite'));
    const applied = appliedOnDisk(options.dataDir, options.shards);
    // Behind on any shard's first sequence: that shard was truncated past this node.
    const truncatedPast = firsts.some((first, shard) => (applied[shard] ?? 0) + 1 < first);
    const total = applied.reduce((sum, seq) => sum + seq, 0);
    const replicas = Math.min(3, options.servers.length);
    // No bucket yet: no snapshot was ever taken. Any other failure is retried: a wiped node that took a timeout for
    // "no snapshot" would replay the whole log, or find it truncated and stop.
    const verified = await retryAtStart(
      `reading the cluster snapshots in the KV bucket ${clusterBucket}`,
      () =>
        new Kvm(nc)
          .open(clusterBucket)
          .then((kv) => kv.get('snapshots'))
          .then(
            (entry) => (entry?.operation === 'PUT' ? entry.json<VerifiedSnapshot[]>() : []),
            (error: unknown) => {
              if (/stream not found/i.test((error as Error).message)) return [];
              throw error;
            },
          ),
      options.logger,
    );
    // Only snapshots from which every shard continues (every one, unless truncation outran them) and that are ahead.
    const usable = verified.filter(
      (s) =>
        Array.isArray(s.shards) &&
        s.shards.length === options.shards &&
        firsts.every((first, shard) => (s.shards[shard] ?? 0) + 1 >= first) &&
        s.seq > total,
    );
    if (!truncatedPast && (hasStore || usable.length === 0)) return null;
    if (usable.length === 0) {
      throw new ConfigError(
        `Cluster mode: this node applied the shards of the log up to ${applied.join(', ')}, but they now start at ${firsts.join(', ')} and no verified cluster snapshot continues from there (${verified.length} listed). Start it once a snapshot was taken, or copy a node's data folder.`,
      );
    }
    const store = options.store ?? (await NatsObjectStore.open(nc, snapshotBucket, replicas, options.logger));
    const progress = await retryAtStart(
      `opening the KV bucket ${progressBucket}`,
      () => new Kvm(nc).create(progressBucket, { ttl: options.goneAfterMs, replicas, history: 1 }),
      options.logger,
    );
    let previousData: string | undefined;
    let lastError: unknown = null;
    for (const snapshot of usable) {
      // What this node needs from now on: the log after the snapshot (truncation keeps it while this key lives).
      // Renewed while the restore runs (as ClusterProgress reports a running node), so a restore that outlasts
      // CLUSTER_NODE_GONE_S never lets its key expire and the log be truncated past the snapshot meanwhile; the last
      // renewal, at the end, keeps the key for that long again while the engine opens and takes over the reports.
      const report = () =>
        progress.put(
          options.nodeId,
          JSON.stringify({
            node: options.nodeId,
            applied: snapshot.shards,
            at: Date.now(),
            restoring: true,
            snapshot: snapshot.id,
          } satisfies NodeProgress),
        );
      await report();
      const renewal = setInterval(
        () => void report().catch(() => undefined),
        Math.max(100, Math.min(5_000, Math.floor(options.goneAfterMs / 6))),
      );
      if (previousData === undefined && hasStore) previousData = moveAside(options.dataDir);
      options.onRestoring?.(snapshot);
      options.logger.info(
        { snapshot: snapshot.id, seq: snapshot.seq, bytes: snapshot.bytes, applied, shards_start_at: firsts },
        'cluster mode: restoring the latest cluster snapshot before replaying the log',
      );
      try {
        const archive = await store.get(archiveKey(snapshot.id));
        if (!archive) throw new Error(`its archive is not in ${store.location}`);
        await restoreSnapshot(archive.body, options.dataDir, options.files);
        await report();
      } catch (error) {
        lastError = error;
        options.logger.error({ err: error, snapshot: snapshot.id }, 'cluster mode: a cluster snapshot was refused');
        continue;
      } finally {
        clearInterval(renewal);
      }
      const dropped = dropNodeLocalRows(options.dataDir);
      options.logger.info(
        { snapshot: snapshot.id, seq: snapshot.seq, dropped_node_local_rows: dropped },
        'cluster mode: restored the cluster snapshot; replaying the log after it',
      );
      return {
        id: snapshot.id,
        seq: snapshot.seq,
        shards: snapshot.shards,
        ...(previousData !== undefined && { previousData }),
      };
    }
    throw lastError instanceof Error ? lastError : new Error('no cluster snapshot could be restored');
  } finally {
    await nc.close();
  }
}

/** Moves a store the log has left behind (and its index files) into `replaced-<time>/` beside it. */
function moveAside(dataDir: string): string {
  const target = join(dataDir, `replaced-${new Date().toISOString().replace(/[:.]/g, '-')}`);
  mkdirSync(target, { recursive: true });
  for (const name of ['godb.sqlite', 'godb.sqlite-wal', 'godb.sqlite-shm', 'vectors', 'text']) {
    if (existsSync(join(dataDir, name))) renameSync(join(dataDir, name), join(target, name));
  }
  return target;
}
