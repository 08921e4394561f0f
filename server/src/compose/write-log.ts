import { NatsLog } from '../cluster/log/nats-log.js';
import type { ClusterLogger } from '../cluster/start-retries.js';
import type { Config } from '../config/env.js';
import type { Engine } from '../engine/engine.js';
import { LocalLog } from '../engine/operations/local-log.js';
import type { NodeLog } from '../engine/operations/operation.js';
import { OperationApplier } from '../engine/operations/operation-applier.js';

export interface WriteLogOptions {
  readonly config: Config;
  /** NATS_URL's servers; none for one embedded node. */
  readonly natsUrls: readonly string[];
  readonly nodeId: string;
  readonly engine: Engine;
  readonly logger: ClusterLogger;
}

/** The one log every write is submitted to, and the replicated log behind it in cluster mode. */
export interface WriteLogs {
  readonly writeLog: NodeLog;
  /** Cluster mode's replicated log, or null for one embedded node. */
  readonly cluster: NatsLog | null;
}

/**
 * Every write is an operation applied by one applier: at once embedded (a LocalLog), in log order in a cluster (the
 * NatsLog, which catches up with the replicated log in the background; the node's API refuses requests until then).
 *
 * @example const { writeLog, cluster } = await openWriteLog({ config, natsUrls, nodeId, engine, logger });
 */
export async function openWriteLog(options: WriteLogOptions): Promise<WriteLogs> {
  const { config, natsUrls, nodeId, engine } = options;
  const applier = new OperationApplier({ ...engine, node: nodeId });
  const cluster =
    natsUrls.length > 0
      ? await NatsLog.open({
          servers: natsUrls,
          nodeId,
          shards: config.CLUSTER_SHARDS,
          applier,
          clock: engine.clock,
          publishTimeoutMs: config.NATS_PUBLISH_TIMEOUT_MS,
          syncAlways: config.NATS_SYNC_ALWAYS,
          defaultCollectionShards: config.CLUSTER_COLLECTION_SHARDS,
          // The start-up lines until the app's logger exists: retries while JetStream does not answer are told.
          logger: options.logger,
        })
      : null;
  if (cluster) return { writeLog: cluster, cluster };
  const local = new LocalLog({ applier, clock: engine.clock, node: nodeId, snapshots: engine.snapshots });
  // Before the API serves, so no restore's fresh copy is swept; a store that cannot be listed now says so later.
  await local.forgetLeftovers().catch(() => {});
  return { writeLog: local, cluster };
}
