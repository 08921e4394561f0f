import { join } from 'node:path';
import { ClusterDuties } from '../cluster/cluster-duties.js';
import { ClusterSnapshots } from '../cluster/cluster-snapshots.js';
import type { NatsLog } from '../cluster/log/nats-log.js';
import { NatsObjectStore, snapshotBucket } from '../cluster/nats-object-store.js';
import { filesBucket, SharedObjectStore, tenantSnapshotsBucket } from '../cluster/shared-object-store.js';
import { catchUpFromSnapshot, type RestoredSnapshot } from '../cluster/snapshot-catch-up.js';
import type { ClusterLogger } from '../cluster/start-retries.js';
import type { Config } from '../config/env.js';
import type { Storage } from '../config/storage.js';
import type { Clock } from '../engine/clock.js';
import type { Engine } from '../engine/engine.js';
import { LocalObjectStore } from '../engine/files/local-object-store.js';
import type { ObjectStore } from '../engine/files/object-store.js';
import { Snapshots } from '../engine/snapshots/snapshots.js';
import type { RestoringState } from '../transport/http/restoring-responder.js';
import { closeOnFailure } from './close-on-failure.js';
import { addressOf } from './cluster-state.js';

export interface SnapshotRestoreOptions {
  readonly config: Config;
  readonly natsUrls: readonly string[];
  readonly nodeId: string;
  readonly storage: Storage;
  /** Answers health and readiness on PORT while a snapshot is restored (see ServerSeams.whileRestoring). */
  readonly whileRestoring: ((state: RestoringState) => Promise<() => Promise<void>>) | undefined;
  readonly logger: ClusterLogger;
}

/**
 * Cluster mode: a new or wiped node, or one the log was truncated past, restores the latest cluster snapshot into
 * its data folder before its store opens (see cluster/snapshot-catch-up.ts). Closes the storage if it fails.
 *
 * @example const restored = await restoreLatestSnapshot({ config, natsUrls, nodeId, storage, whileRestoring, logger });
 */
export async function restoreLatestSnapshot(options: SnapshotRestoreOptions): Promise<RestoredSnapshot | null> {
  const { config, nodeId, storage, logger } = options;
  let restoring: Promise<() => Promise<void>> | null = null;
  const catchUp = catchUpFromSnapshot({
    servers: options.natsUrls,
    nodeId,
    dataDir: config.DATA_DIR,
    shards: config.CLUSTER_SHARDS,
    store: storage.clusterSnapshots ?? null,
    files: storage.files ?? new LocalObjectStore(join(config.DATA_DIR, 'files')),
    goneAfterMs: config.CLUSTER_NODE_GONE_S * 1000,
    syncAlways: config.NATS_SYNC_ALWAYS,
    onRestoring: (snapshot) => {
      const state = { node: nodeId, snapshot: { id: snapshot.id, seq: snapshot.seq, bytes: snapshot.bytes } };
      restoring ??=
        options.whileRestoring?.(state).catch((error: unknown) => {
          logger.error({ err: error }, 'cluster mode: PORT could not answer while the snapshot is restored');
          return async () => {};
        }) ?? null;
    },
    logger,
  });
  return closeOnFailure(catchUp, [storage]).finally(async () => {
    const stop = await restoring;
    await stop?.();
  });
}

/** Where the engine keeps uploaded files and users' snapshots, and which of them the cluster shares over NATS. */
export interface SharedStores {
  /** The storage provider's files area, the cluster's shared store, or null: the engine's DATA_DIR/files. */
  readonly files: ObjectStore | null;
  /** The storage provider's snapshots area, the cluster's shared store, or null: the engine's DATA_DIR/snapshots. */
  readonly snapshots: ObjectStore | null;
  /** The JetStream object stores among them, attached once NATS is connected (see startClusterNode). */
  readonly unattached: readonly SharedObjectStore[];
}

/**
 * Cluster mode: uploaded files are kept where every node reads them, the S3 bucket or the JetStream object store
 * (attached once NATS is connected), so operations carry their keys and any node serves a download. The snapshots
 * users take go where every node lists, downloads and restores them: the bucket, or another JetStream bucket.
 *
 * @example const shared = sharedStoresOf(natsUrls.length > 0, storage); openEngine({ files: shared.files, … });
 */
export function sharedStoresOf(clustered: boolean, storage: Storage): SharedStores {
  const sharedFiles = clustered && !storage.files ? new SharedObjectStore(filesBucket) : null;
  const sharedSnapshots = clustered && !storage.snapshots ? new SharedObjectStore(tenantSnapshotsBucket) : null;
  return {
    files: storage.files ?? sharedFiles,
    snapshots: storage.snapshots ?? sharedSnapshots,
    unattached: [sharedFiles, sharedSnapshots].filter((shared) => shared !== null),
  };
}

export interface ClusterNodeOptions {
  readonly config: Config;
  readonly cluster: NatsLog;
  readonly shared: SharedStores;
  readonly storage: Storage;
  readonly engine: Engine;
  readonly nodeId: string;
  readonly clock: Clock;
  readonly logger: ClusterLogger;
}

/**
 * Cluster mode, once the log is open: attaches the shared object stores, opens the cluster snapshots, and starts
 * the progress reports to KV and the lease on the singleton work (see cluster/cluster-duties.ts).
 *
 * @example const duties = await startClusterNode({ config, cluster, shared, storage, engine, nodeId, clock, logger });
 */
export async function startClusterNode(options: ClusterNodeOptions): Promise<ClusterDuties> {
  const { config, cluster, shared, engine, nodeId, clock, logger } = options;
  const partitions = cluster.partitions;
  for (const store of shared.unattached) {
    store.attach(await NatsObjectStore.open(cluster.connection, store.bucket, cluster.replicas, logger));
  }
  const store =
    options.storage.clusterSnapshots ??
    (await NatsObjectStore.open(cluster.connection, snapshotBucket, cluster.replicas, logger));
  const snapshots = await ClusterSnapshots.open(cluster.connection, cluster.replicas, {
    snapshots: new Snapshots({
      vectors: engine.vectors,
      dataDir: config.DATA_DIR,
      store,
      // The files are in the shared store already, which every node reads: a snapshot need not carry them.
      files: null,
      clock,
    }),
    store,
    shardCount: cluster.shardCount,
    dataDir: config.DATA_DIR,
    node: nodeId,
    logger,
  });
  return ClusterDuties.start({
    log: cluster,
    nodeId,
    address: addressOf(config),
    goneAfterMs: config.CLUSTER_NODE_GONE_S * 1000,
    leaseTtlMs: config.CLUSTER_LEASE_TTL_MS,
    snapshots,
    // Restores keep a copy of their archive there; the holder deletes it once the log is truncated past them.
    keptStore: shared.snapshots,
    snapshotEveryOps: config.CLUSTER_SNAPSHOT_EVERY_OPS,
    snapshotEveryMs: config.CLUSTER_SNAPSHOT_EVERY_MIN * 60_000,
    ...(partitions && {
      moves: (nodes: readonly string[], holding: () => boolean) => partitions.rebalance(nodes, holding),
    }),
    jobs: {
      runningOn: () => engine.jobs.runningOn(),
      abandon: (node) => cluster.submit({ kind: 'job', method: 'abandon', args: [node, 'gone'] }),
    },
    now: () => clock.now(),
    logger,
  });
}
