import type { ClusterDuties } from '../cluster/cluster-duties.js';
import type { NatsLog } from '../cluster/log/nats-log.js';
import { shardSubjectOf } from '../cluster/partition/collection-stream.js';
import type { Config } from '../config/env.js';
import type { ClusterDeps } from '../service/cluster/deps.js';

/** A node counts as alive while its last report is at most this many report intervals old. */
const aliveReports = 3;

/** Where this node serves its API, as it reports it to the cluster: PUBLIC_URL, or http://HOST:PORT. */
export const addressOf = (config: Config): string => config.PUBLIC_URL || `http://${config.HOST}:${config.PORT}`;

/**
 * What GET /api/v1/cluster reads (service/cluster/get-cluster.ts): in cluster mode, the nodes' progress reports
 * (KV `godb-progress`), the shard streams as JetStream describes them, and this node's applied sequences.
 *
 * @example const deps = { ...clusterDepsOf({ config, nodeId, cluster, duties }) };
 */
export function clusterDepsOf(options: {
  readonly config: Config;
  readonly nodeId: string;
  readonly cluster: NatsLog | null;
  readonly duties: ClusterDuties | null;
}): Pick<ClusterDeps, 'self' | 'clusterState'> {
  const { config, nodeId, cluster, duties } = options;
  const self = { id: nodeId, address: addressOf(config) };
  if (!cluster || !duties) return { self, clusterState: null };
  return {
    self,
    clusterState: async () => {
      const [reports, streams] = await Promise.all([duties.progress.live(), cluster.describeShards()]);
      const placements = cluster.partitions?.placements() ?? [];
      return {
        reports,
        streams,
        applied: cluster.appliedByShard(),
        aliveWithinMs: aliveReports * duties.progress.intervalMs,
        collections: placements.map(({ record }) => ({
          tenant_id: record.tenantId,
          name: record.name,
          epoch: record.epoch,
          replication_factor: record.replicationFactor,
          shards: record.replicas.map((replicas, shard) => ({
            shard,
            subject: shardSubjectOf(record.tenantId, record.name, shard),
            replicas,
            holders: [...replicas, ...(record.moves ?? []).filter((m) => m.shard === shard).map((m) => m.to)],
          })),
        })),
        moves: await Promise.all(
          placements.flatMap(({ record }) =>
            (record.moves ?? []).map(async (move) => {
              const subject = shardSubjectOf(record.tenantId, record.name, move.shard);
              return {
                tenant_id: record.tenantId,
                collection: record.name,
                shard: move.shard,
                subject,
                from: move.from,
                to: move.to,
                started_at: move.startedAt,
                last_seq: (await cluster.partitions?.lastOfSubject(subject).catch(() => 0)) ?? 0,
              };
            }),
          ),
        ),
      };
    },
  };
}
