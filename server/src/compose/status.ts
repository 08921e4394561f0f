import type { ClusterDuties } from '../cluster/cluster-duties.js';
import type { NatsLog } from '../cluster/log/nats-log.js';
import type { RestoredSnapshot } from '../cluster/snapshot-catch-up.js';
import type { Engine } from '../engine/engine.js';
import type { AppOptions } from '../transport/http/app.js';

export interface NodeStatusSources {
  readonly engine: Engine;
  /** Cluster mode's replicated log, its duties and the snapshot restored at start, or nulls embedded. */
  readonly cluster: NatsLog | null;
  readonly duties: ClusterDuties | null;
  readonly restored: RestoredSnapshot | null;
}

/**
 * What /readyz and /metrics report: ready while the store answers, the indexes loading, their counters, memory,
 * and in cluster mode the node's place in the log, its duties and the snapshot it restored at start.
 *
 * @example const app = await buildApp({ config, services, ...statusOf({ engine, cluster, duties, restored }), … });
 */
export function statusOf(sources: NodeStatusSources): Pick<AppOptions, 'isReady' | 'status'> {
  const { engine, cluster, duties, restored } = sources;
  return {
    isReady: () => engine.isHealthy(),
    status: () => {
      const counters = engine.vectors.counters();
      return {
        loading: [
          ...engine.vectors.loading().map((l) => ({ kind: 'vector_index' as const, ...l })),
          ...engine.text.loading().map((l) => ({ kind: 'text_index' as const, space: 'text', ...l })),
        ],
        vectorIndexes: {
          ...counters.opened,
          checkpoints: counters.checkpoints,
          evictions: counters.evictions,
          unreadable: counters.unreadable,
          lag: engine.vectors.lag(),
        },
        textIndexes: engine.text.counters(),
        ...(engine.searchPool && {
          searchPool: {
            threads: engine.searchPool.size,
            building: engine.searchPool.building,
            ...engine.searchPool.counts,
          },
        }),
        memory: () => engine.memory(),
        ...(cluster && {
          cluster: { ...cluster.status(), ...duties?.status(), ...(restored && { restoredFrom: restored }) },
        }),
      };
    },
  };
}
