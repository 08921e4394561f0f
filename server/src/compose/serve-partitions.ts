import { operations, type CatalogueOperation } from '@godb/contract';
import type { ClusterDuties } from '../cluster/cluster-duties.js';
import type { NatsLog } from '../cluster/log/nats-log.js';
import type { Clock } from '../engine/clock.js';
import type { Principal } from '../service/context.js';
import type { Services } from '../service/use-cases.js';

/** A node counts as alive for placements and fan-outs while its last report is at most this many intervals old. */
const aliveReports = 3;

/**
 * Cluster mode: the partitioned collections (decision 0062) learn which nodes are alive from the progress reports,
 * and this node answers the searches other nodes fan out to it through its own services (their access rules
 * included), for the shards it holds.
 *
 * @example servePartitions(cluster, duties, services, clock);
 */
export function servePartitions(cluster: NatsLog, duties: ClusterDuties, services: Services, clock: Clock): void {
  const partitions = cluster.partitions;
  if (!partitions) return;
  partitions.attachLiveness(async () => {
    const within = aliveReports * duties.progress.intervalMs;
    const now = clock.now();
    return (await duties.progress.live()).filter((r) => now - r.at <= within).map((r) => r.node);
  });
  const byId = new Map<string, CatalogueOperation>(operations.map((o) => [o.id, o]));
  partitions.serveSearches(async (operationId, body, principal) => {
    const operation = byId.get(operationId);
    if (!operation) throw new TypeError(`no operation ${operationId}`);
    return services.invoke(
      operation,
      { params: {}, query: {}, body },
      { principal: principal as Principal, requestId: `fan-out-${operationId}`, partitionLocal: true },
    );
  });
}
