import type { FastifyInstance } from 'fastify';
import { hostname } from 'node:os';
import type { ClusterDuties } from '../cluster/cluster-duties.js';
import type { NatsLog } from '../cluster/log/nats-log.js';
import { natsUrlsOf, type Config } from '../config/env.js';
import { openStorage } from '../config/storage.js';
import { systemClock, type Clock } from '../engine/clock.js';
import { openEngine, type Engine } from '../engine/engine.js';
import { OperationClock } from '../engine/operations/operation-clock.js';
import type { MailRelay } from '../service/mail/mail-relay.js';
import { createServices, type Services } from '../service/use-cases.js';
import { startGrpcServer, type RunningGrpc } from '../transport/grpc/grpc-server.js';
import { buildApp } from '../transport/http/app.js';
import { buildQdrantCompatApp } from '../transport/http/qdrant/compat-app.js';
import type { RestoringState } from '../transport/http/restoring-responder.js';
import { bootstrapOf, clusterStarted, startEngineUpkeep, startMailRelay } from './background-tasks.js';
import { closeOnFailure } from './close-on-failure.js';
import { restoreLatestSnapshot, sharedStoresOf, startClusterNode } from './cluster-node.js';
import { engineOptionsOf } from './engine-options.js';
import { readVersion, webDistOf } from './install.js';
import { NodeLogger } from './node-logger.js';
import { serviceDepsOf } from './service-deps.js';
import { shutDown } from './shutdown.js';
import { statusOf } from './status.js';
import { openWriteLog } from './write-log.js';
import { servePartitions } from './serve-partitions.js';

export interface GoDBServer {
  readonly app: FastifyInstance;
  /** The gRPC server, when GRPC_PORT is not 0. */
  readonly grpc: RunningGrpc | null;
  /** The Qdrant-compatible API at Qdrant's root paths, listening on QDRANT_COMPAT_PORT when it is not 0. */
  readonly qdrant: FastifyInstance | null;
  readonly engine: Engine;
  readonly services: Services;
  /** Cluster mode's replicated log (NATS_URL set), or null for one embedded node. */
  readonly cluster: NatsLog | null;
  /** Cluster mode's progress reports, lease and singleton work (snapshots, truncation), or null. */
  readonly clusterDuties: ClusterDuties | null;
  /**
   * Resolves once the node is started: at once for an embedded node; in cluster mode once the node applied what the
   * log held when it started (its API answers 503 CLUSTER_CATCHING_UP until then, its health and readiness checks
   * at once) and then made the super admin if no node had.
   */
  readonly started: Promise<void>;
  close(): Promise<void>;
}

/** What tests may swap that no configuration names. */
export interface ServerSeams {
  /** The install a release is built from when RELEASE_DIR lacks it (this checkout by default); tests pass a tiny one. */
  readonly releaseRoot?: string;
  /**
   * Called when a cluster node starts restoring a cluster snapshot, before its store and API exist; what it answers
   * is called once the restore ended. main.ts answers health and readiness on PORT meanwhile.
   */
  readonly whileRestoring?: (state: RestoringState) => Promise<() => Promise<void>>;
}

/**
 * The composition root: configuration → engine → log → services → transports. Used by main.ts and by the tests, so
 * tests run the very server users run. A step that fails closes what the steps before it opened.
 *
 * @example const server = await createServer(loadConfig(process.env)); await server.app.listen({ port: 8080 });
 */
export async function createServer(
  config: Config,
  clock: Clock = systemClock,
  seams: ServerSeams = {},
): Promise<GoDBServer> {
  // First, so a bucket that cannot be used stops start-up (ConfigError) before anything is opened.
  const storage = await openStorage(config);
  const natsUrls = natsUrlsOf(config);
  const clustered = natsUrls.length > 0;
  const nodeId = config.NODE_ID || hostname();
  const logger = new NodeLogger(config.LOG_LEVEL);
  const restored = clustered
    ? await restoreLatestSnapshot({ config, natsUrls, nodeId, storage, whileRestoring: seams.whileRestoring, logger })
    : null;
  // Cluster mode: the engine reads an operation's own time while applying it (see OperationClock).
  const engineClock = new OperationClock(clock);
  const shared = sharedStoresOf(clustered, storage);
  const engine = openEngine(
    engineOptionsOf(config, { files: shared.files, snapshots: shared.snapshots, clock: engineClock }),
  );
  const { writeLog, cluster } = await closeOnFailure(openWriteLog({ config, natsUrls, nodeId, engine, logger }), [
    engine,
    storage,
  ]);
  const duties = cluster
    ? await closeOnFailure(startClusterNode({ config, cluster, shared, storage, engine, nodeId, clock, logger }), [
        cluster,
        engine,
        storage,
      ])
    : null;
  const version = readVersion();
  let relay: MailRelay | null = null;
  const deps = serviceDepsOf({
    config,
    engine,
    writeLog,
    clustered: cluster !== null,
    cluster,
    duties,
    nodeId,
    clock,
    version,
    releases: storage.releases,
    releaseRoot: seams.releaseRoot,
    logger,
    kickRelay: () => relay?.kick(),
  });
  const bootstrap = bootstrapOf({ config, deps, engine, writeLog, cluster, nodeId });
  // In cluster mode the super admin is looked for once the node caught up: another node may have made it already.
  if (!cluster) await bootstrap();
  const services = createServices(deps);
  if (cluster && duties) servePartitions(cluster, duties, services, clock);
  const app = await buildApp({
    config,
    services,
    ...statusOf({ engine, cluster, duties, restored }),
    webDist: webDistOf(config),
    version,
    // The guards time their buckets with the monotonic clock, unless a test holds time still with its own.
    ...(clock !== systemClock && { now: () => clock.now() }),
  });
  logger.useApp(app.log);
  let closing = false;
  const started = cluster
    ? clusterStarted({ cluster, servers: natsUrls.length, bootstrap, log: app.log, closing: () => closing })
    : Promise.resolve();
  const checkpoints = startEngineUpkeep(engine, app.log);
  const mailRelay = startMailRelay({ config, engine, writeLog, cluster, duties, log: app.log });
  relay = mailRelay;
  const grpc =
    config.GRPC_PORT > 0
      ? await startGrpcServer({
          services,
          host: config.HOST,
          port: config.GRPC_PORT,
          log: app.log,
          ...(cluster && { started }),
        })
      : null;
  const qdrant =
    config.QDRANT_COMPAT_PORT > 0
      ? await buildQdrantCompatApp({ config, services, ...(clock !== systemClock && { now: () => clock.now() }) })
      : null;
  await qdrant?.listen({ host: config.HOST, port: config.QDRANT_COMPAT_PORT });
  return {
    app,
    grpc,
    qdrant,
    engine,
    services,
    cluster,
    clusterDuties: duties,
    started,
    async close() {
      closing = true;
      await qdrant?.close();
      await shutDown({
        app,
        grpc,
        relay: mailRelay,
        checkpoints,
        duties,
        cluster,
        engine,
        storage,
        importPool: deps.importPool,
      });
    },
  };
}
