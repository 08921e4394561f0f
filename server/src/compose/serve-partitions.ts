import { operations, type CatalogueOperation } from '@godb/contract';
import type { ClusterDuties } from '../cluster/cluster-duties.js';
import type { NatsLog } from '../cluster/log/nats-log.js';
import type { Clock } from '../engine/clock.js';
import type { Consistency } from '../engine/operations/operation.js';
import { documentShard } from '../cluster/partition/document-shard.js';
import { collectionId, type PlacementRecord } from '../cluster/partition/placement-records.js';
import type { GivenStats } from '../engine/text/bm25-score.js';
import { countedBy, type StatsCounting } from '../engine/search/text-stats.js';
import type { CountedDocument } from '../engine/search/scope.js';
import type { Partitions, SearchRound } from '../cluster/partition/partitions.js';
import { withoutMoving } from '../cluster/partition/without-moving.js';
import type { PartitionRun, Principal } from '../service/context.js';
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
  partitions.serveSearches(async (operationId, { body, params, query }, principal, run) => {
    const operation = byId.get(operationId);
    if (!operation) throw new TypeError(`no operation ${operationId}`);
    const caller = principal as Principal;
    const table = (body as { primary_table?: unknown } | null)?.primary_table;
    const named = typeof table === 'string' && run.wholeTenant !== true;
    const record = named ? partitions.placementOf(caller.tenantId, table) : undefined;
    // What a dfs round or a search of the whole tenant counts here (without `counted`: only the rest of the tenant).
    const counting = statsCounting(partitions, caller.tenantId, run.counted);
    const partition: PartitionRun = {
      // A search of one partitioned collection counts the shards asked; one of the whole tenant, what `counting` says.
      keep: named ? shardKeep(record, run.shards) : countedBy(counting),
      ...(run.phase && { phase: run.phase }),
      counting,
      ...(run.stats !== undefined && { stats: run.stats as GivenStats }),
      ...(run.words !== undefined && { words: run.words }),
      ...(run.notes !== undefined && { notes: run.notes }),
      ...(run.ids !== undefined && { ids: run.ids }),
      ...(run.given !== undefined && { given: run.given }),
    };
    const answer = await services.invoke(
      operation,
      { params: params ?? {}, query: query ?? {}, body },
      {
        principal: caller,
        requestId: `fan-out-${operationId}`,
        partitionLocal: true,
        partition,
        ...(run.carried?.idempotencyKey !== undefined && { idempotencyKey: run.carried.idempotencyKey }),
        ...(run.carried?.consistency !== undefined && { consistency: run.carried.consistency as Consistency }),
      },
    );
    const moving = record ? partitions.movingInto(record.tenantId, record.name) : new Set<number>();
    if (!record || moving.size === 0) return answer;
    const id = collectionId(record.tenantId, record.name);
    return withoutMoving(answer, (documentId) => moving.has(documentShard(id, documentId, record.shards)));
  });
}

/** What the dfs round counts here: the shards asked of each collection (none when this node runs its own share). */
function statsCounting(partitions: Partitions, tenantId: string, counted: SearchRound['counted']): StatsCounting {
  const names = partitions.partitionedOf(tenantId);
  if (!counted) return { partitioned: names };
  return {
    partitioned: names,
    key: JSON.stringify(Object.entries(counted).sort(([a], [b]) => (a < b ? -1 : 1))),
    counted: new Map(
      Object.entries(counted).map(([name, shards]) => [name, shardIds(partitions.placementOf(tenantId, name), shards)]),
    ),
  };
}

/**
 * Whether a document id is in `shards` of a partitioned collection: every document held here when `shards` is null
 * (or the collection is not partitioned here).
 */
function shardIds(record: PlacementRecord | undefined, shards: readonly number[] | null): (id: string) => boolean {
  if (!record || shards === null) return () => true;
  const asked = new Set(shards);
  const id = collectionId(record.tenantId, record.name);
  return (documentId) => asked.has(documentShard(id, documentId, record.shards));
}

/** shardIds of a document (a search of one collection: every document it reads is of that collection). */
function shardKeep(record: PlacementRecord | undefined, shards: readonly number[] | null): CountedDocument {
  const kept = shardIds(record, shards);
  return (doc) => kept(doc.id);
}
