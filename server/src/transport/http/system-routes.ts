import { buildOpenApi, operations } from '@godb/contract';
import type { FastifyInstance } from 'fastify';
import type { Metrics, NodeStatus } from './metrics.js';

export interface SystemRouteOptions {
  readonly version: string;
  readonly isReady: () => boolean;
  readonly status: () => NodeStatus;
  readonly metrics: Metrics;
}

/** Liveness, readiness, Prometheus metrics and the OpenAPI document. */
export function registerSystemRoutes(app: FastifyInstance, options: SystemRouteOptions): void {
  const openApi = buildOpenApi(operations, { version: options.version });

  app.get('/healthz', async () => ({ status: 'ok' }));
  // 503 only when the store cannot answer, or (cluster mode) when the node stopped applying the log at an operation
  // it cannot apply (its reads would fall further behind), or refuses writes while a NATS server that joined later
  // fails the version checks (nats-server-watch.ts). A node that cannot confirm it is current (a majority of the NATS
  // servers down or out of reach) stays ready, since reads go on, and says so: `cluster.reads_may_be_stale`, and why
  // (its reads carry X-GoDB-Stale: true meanwhile). Indexes loading after a restart do not make the node
  // unready: every other request is served, and vector queries for them wait (then 503 INDEX_LOADING); the body says
  // what loads.
  app.get('/readyz', async (_request, reply) => {
    const { loading, vectorIndexes, textIndexes, cluster } = options.status();
    const ready = options.isReady() && !cluster?.halted && !cluster?.startingUp && !cluster?.refusingWrites;
    return reply.code(ready ? 200 : 503).send({
      status: !ready ? 'not ready' : loading.length > 0 ? 'loading' : 'ready',
      loading,
      vector_indexes: vectorIndexes,
      text_indexes: textIndexes,
      ...(cluster && {
        cluster: {
          node_id: cluster.node,
          applied_seq: cluster.applied,
          lag: cluster.lag,
          reads_may_be_stale: cluster.stale !== undefined,
          ...(cluster.stale && { stale_because: cluster.stale.reason, stale_shards: cluster.stale.shards }),
          shards: cluster.shards.map((s) => ({
            shard: s.shard,
            applied_seq: s.applied,
            lag: s.lag,
            ...(s.waitingFor !== undefined && { waiting_for_directory_seq: s.waitingFor }),
          })),
          ...(cluster.leaseHolder !== undefined && { lease_holder: cluster.leaseHolder }),
          ...(cluster.latestSnapshot && {
            latest_snapshot: {
              id: cluster.latestSnapshot.id,
              seq: cluster.latestSnapshot.seq,
              shards: cluster.latestSnapshot.shards,
            },
          }),
          ...(cluster.truncatedBefore !== undefined && { truncated_before_seq: cluster.truncatedBefore }),
          ...(cluster.restoredFrom && {
            restored_snapshot: { id: cluster.restoredFrom.id, seq: cluster.restoredFrom.seq },
          }),
          ...(cluster.halted && {
            halted_shard: cluster.halted.shard,
            halted_at_seq: cluster.halted.seq,
            halted_because: cluster.halted.reason,
          }),
          ...(cluster.refusingWrites && {
            refusing_writes: {
              server: cluster.refusingWrites.server,
              version: cluster.refusingWrites.version,
              reason: cluster.refusingWrites.reason,
            },
          }),
          ...(cluster.startingUp && {
            catching_up: { applied_seq: cluster.startingUp.applied, target_seq: cluster.startingUp.target },
          }),
        },
      }),
    });
  });
  app.get('/metrics', async (_request, reply) =>
    reply.type(options.metrics.registry.contentType).send(await options.metrics.registry.metrics()),
  );
  app.get('/api/v1/openapi.json', async () => openApi);

  // Callback hooks, not async ones, on every request: each promise of an async hook costs a turn (decision 0049).
  app.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url ?? 'unmatched';
    options.metrics.requests.inc({ method: request.method, route, status: String(reply.statusCode) });
    options.metrics.duration.observe({ method: request.method, route }, reply.elapsedTime / 1000);
    done();
  });
}
