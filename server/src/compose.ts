import type { FastifyInstance } from 'fastify';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { hostname } from 'node:os';
import { stdoutLogDestination } from './logging/log-destination.js';
import { ClusterDuties } from './cluster/cluster-duties.js';
import { ClusterSnapshots } from './cluster/cluster-snapshots.js';
import { NatsObjectStore, snapshotBucket } from './cluster/nats-object-store.js';
import { catchUpFromSnapshot } from './cluster/snapshot-catch-up.js';
import { filesBucket, SharedObjectStore, tenantSnapshotsBucket } from './cluster/shared-object-store.js';
import { NatsLog } from './cluster/log/nats-log.js';
import { natsUrlsOf, remoteModelsOf, type Config } from './config/env.js';
import { DocumentCommands } from './engine/operations/document-commands.js';
import { LocalLog } from './engine/operations/local-log.js';
import { OperationApplier } from './engine/operations/operation-applier.js';
import type { NodeLog } from './engine/operations/operation.js';
import { OperationClock } from './engine/operations/operation-clock.js';
import { resolveJwtSecret } from './config/jwt-secret.js';
import { openStorage } from './config/storage.js';
import { systemClock, type Clock } from './engine/clock.js';
import { openEngine, type Engine } from './engine/engine.js';
import { LocalObjectStore } from './engine/files/local-object-store.js';
import { Snapshots } from './engine/snapshots/snapshots.js';
import { ApiKeyRateLimit } from './service/auth/api-keys.js';
import { bootstrapSuperAdmin } from './service/auth/bootstrap-superadmin.js';
import { argon2Hasher } from './service/auth/passwords.js';
import { createTokenService } from './service/auth/tokens.js';
import { DownloadLinks } from './service/mail/download-links.js';
import { MailRelay } from './service/mail/mail-relay.js';
import { leasedRelayOutbox, mailQueue, soleRelayOutbox } from './service/mail/relay-outbox.js';
import { ReleaseArtifact } from './service/mail/release-artifact.js';
import { createServices, type Services } from './service/use-cases.js';
import { JobWrites, jobProgressEveryMs } from './service/job-writes.js';
import { buildApp } from './transport/http/app.js';
import type { RestoringState } from './transport/http/restoring-responder.js';
import { startGrpcServer, type RunningGrpc } from './transport/grpc/grpc-server.js';

export interface GoDBServer {
  readonly app: FastifyInstance;
  /** The gRPC server, when GRPC_PORT is not 0. */
  readonly grpc: RunningGrpc | null;
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

/**
 * Lines logged before the HTTP app (and its pino logger) exists, in pino's JSON shape: the cluster snapshot a node
 * restores at start-up.
 */
function startupLogger(level: Config['LOG_LEVEL']) {
  const levels: Record<string, number> = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60 };
  const line = (n: number) => (obj: object, msg: string) => {
    if (n < (levels[level] ?? Infinity)) return;
    // An error is written with its type, message and stack, as pino's serializer writes it.
    const { err, ...rest } = obj as { err?: unknown };
    const error = err instanceof Error && { err: { type: err.name, message: err.message, stack: err.stack } };
    stdoutLogDestination().write(`${JSON.stringify({ level: n, time: Date.now(), ...rest, ...error, msg })}\n`);
  };
  return { info: line(30), warn: line(40), error: line(50) };
}

/** How long a stop lets in-flight requests finish before their connections are cut. */
const inFlightGraceMs = 5_000;

/** Resolves after `ms`, without keeping the process alive for it. */
const sleep = (ms: number) => new Promise<void>((done) => setTimeout(done, ms).unref());

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

function readVersion(): string {
  const file = join(repoRoot, 'package.json');
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version : '0.0.0';
}

/** Where the built website is: WEB_DIST, else web/dist of this checkout. */
export function webDistOf(config: Pick<Config, 'WEB_DIST'>): string {
  return config.WEB_DIST !== '' ? resolve(config.WEB_DIST) : join(repoRoot, 'web', 'dist');
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
 * The composition root: configuration → engine → services → transports. Used by main.ts and by the tests, so
 * tests run the very server users run.
 */
export async function createServer(
  config: Config,
  clock: Clock = systemClock,
  seams: ServerSeams = {},
): Promise<GoDBServer> {
  // First, so a bucket that cannot be used stops start-up (ConfigError) before anything is opened.
  const storage = await openStorage(config);
  const natsUrls = natsUrlsOf(config);
  const nodeId = config.NODE_ID || hostname();
  let log: FastifyInstance['log'] | null = null; // the release builder and the log adapter log through the app
  const startupLog = startupLogger(config.LOG_LEVEL);
  const logger = {
    info: (obj: object, message: string) => (log ?? startupLog).info(obj, message),
    warn: (obj: object, message: string) => (log ?? startupLog).warn(obj, message),
    error: (obj: object, message: string) => (log ?? startupLog).error(obj, message),
  };
  // Cluster mode: a new or wiped node, or one the log was truncated past, restores the latest cluster snapshot into
  // its data folder before its store opens (see cluster/snapshot-catch-up.ts).
  let restoring: Promise<() => Promise<void>> | null = null;
  const restored =
    natsUrls.length > 0
      ? await catchUpFromSnapshot({
          servers: natsUrls,
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
              seams.whileRestoring?.(state).catch((error: unknown) => {
                logger.error({ err: error }, 'cluster mode: PORT could not answer while the snapshot is restored');
                return async () => {};
              }) ?? null;
          },
          logger,
        })
          .catch((error: unknown) => {
            storage.close();
            throw error;
          })
          .finally(async () => {
            const stop = await restoring;
            await stop?.();
          })
      : null;
  // Cluster mode: the engine reads an operation's own time while applying it (see OperationClock).
  const clustered = natsUrls.length > 0;
  const engineClock = new OperationClock(clock);
  // Cluster mode: uploaded files are kept where every node reads them, the S3 bucket or the JetStream object store
  // (attached once NATS is connected), so operations carry their keys and any node serves a download.
  const sharedFiles = clustered && !storage.files ? new SharedObjectStore(filesBucket) : null;
  const files = storage.files ?? sharedFiles;
  // The snapshots users take go where every node lists, downloads and restores them: the bucket, or another bucket
  // of the JetStream object store.
  const sharedSnapshots = clustered && !storage.snapshots ? new SharedObjectStore(tenantSnapshotsBucket) : null;
  const snapshotStore = storage.snapshots ?? sharedSnapshots;
  const engine = openEngine({
    dataDir: config.DATA_DIR,
    ...(files && { files }),
    ...(snapshotStore && { snapshots: snapshotStore }),
    clock: engineClock,
    vectorCacheBytes: config.VECTOR_CACHE_MB * 1024 * 1024,
    ...(config.VECTOR_INDEX_MEMORY_MB > 0 && { vectorIndexBytes: config.VECTOR_INDEX_MEMORY_MB * 1024 * 1024 }),
    ...(config.TEXT_INDEX_MEMORY_MB > 0 && { textIndexBytes: config.TEXT_INDEX_MEMORY_MB * 1024 * 1024 }),
    search: { threads: config.SEARCH_THREADS, batchMinVectors: config.SEARCH_BATCH_MIN_VECTORS },
    checkpoint: { writes: config.CHECKPOINT_WRITES, intervalMs: config.CHECKPOINT_INTERVAL_S * 1000 },
    restoreSliceRows: config.RESTORE_SLICE_ROWS,
    // A tenant restore that fails part way is tried again after 1, 4 and 16 seconds.
    restoreRetry: { retries: 3, wait: (attempt) => sleep(1000 * 4 ** (attempt - 1)) },
    indexWait: () => new Promise((done) => setTimeout(done, config.INDEX_WAIT_MS).unref()),
    embeddings: {
      defaultModel: config.DEFAULT_EMBEDDING_MODEL,
      modelsDir: resolve(config.MODELS_DIR),
      modelCacheDir: resolve(config.MODEL_CACHE_DIR || join(config.DATA_DIR, 'model-cache')),
      // A request needing a model still being prepared (the GloVe conversion) answers 503 MODEL_LOADING after 5 s,
      // well before its 504.
      modelWaitMs: Math.min(5_000, Math.floor(config.WRITE_TIMEOUT_MS / 2)),
      sleep,
      workerPoolSize: config.WORKER_POOL_SIZE,
      useLiteRuntime: config.USE_LITE_RUNTIME,
      queueLimit: config.QUEUE_SIZE,
      cacheSize: config.CACHE_SIZE,
      remote: remoteModelsOf(config),
      http: {
        timeoutMs: config.EMBEDDING_TIMEOUT_MS,
        retries: config.EMBEDDING_RETRIES,
        sleep: (ms) => new Promise((done) => setTimeout(done, ms)),
      },
    },
  });
  // Cluster mode: this node catches up with the replicated log in the background (its API refuses requests until it
  // has), then its writes go through it.
  // Every write is an operation applied by this one applier: at once embedded, in log order in a cluster.
  const applier = new OperationApplier({ ...engine, node: nodeId });
  const operationLog = clustered
    ? await NatsLog.open({
        servers: natsUrls,
        nodeId,
        shards: config.CLUSTER_SHARDS,
        applier,
        clock: engineClock,
        publishTimeoutMs: config.NATS_PUBLISH_TIMEOUT_MS,
        syncAlways: config.NATS_SYNC_ALWAYS,
        // The start-up lines until the app's logger exists: retries while JetStream does not answer are told.
        logger,
      }).catch(async (error: unknown) => {
        await engine.close();
        storage.close();
        throw error;
      })
    : null;
  const writeLog: NodeLog =
    operationLog ?? new LocalLog({ applier, clock: engine.clock, node: nodeId, snapshots: engine.snapshots });

  // Cluster mode: progress reported to KV, and the lease on the singleton work (see cluster/cluster-duties.ts).
  const duties = operationLog
    ? await (async () => {
        for (const shared of [sharedFiles, sharedSnapshots]) {
          shared?.attach(
            await NatsObjectStore.open(operationLog.connection, shared.bucket, operationLog.replicas, logger),
          );
        }
        const store =
          storage.clusterSnapshots ??
          (await NatsObjectStore.open(operationLog.connection, snapshotBucket, operationLog.replicas, logger));
        const snapshots = await ClusterSnapshots.open(operationLog.connection, operationLog.replicas, {
          snapshots: new Snapshots({
            vectors: engine.vectors,
            dataDir: config.DATA_DIR,
            store,
            // The files are in the shared store already, which every node reads: a snapshot need not carry them.
            files: null,
            clock,
          }),
          store,
          shardCount: operationLog.shardCount,
          dataDir: config.DATA_DIR,
          node: nodeId,
          logger,
        });
        return ClusterDuties.start({
          log: operationLog,
          nodeId,
          goneAfterMs: config.CLUSTER_NODE_GONE_S * 1000,
          leaseTtlMs: config.CLUSTER_LEASE_TTL_MS,
          snapshots,
          // Restores keep a copy of their archive there; the holder deletes it once the log is truncated past them.
          keptStore: snapshotStore,
          snapshotEveryOps: config.CLUSTER_SNAPSHOT_EVERY_OPS,
          snapshotEveryMs: config.CLUSTER_SNAPSHOT_EVERY_MIN * 60_000,
          jobs: {
            runningOn: () => engine.jobs.runningOn(),
            abandon: (node) => operationLog.submit({ kind: 'job', method: 'abandon', args: [node, 'gone'] }),
          },
          now: () => clock.now(),
          logger,
        });
      })().catch(async (error: unknown) => {
        await operationLog.close();
        await engine.close();
        storage.close();
        throw error;
      })
    : null;
  const jwtSecret = resolveJwtSecret(config.DATA_DIR, config.JWT_SECRET);
  const version = readVersion();
  const publicUrl = config.PUBLIC_URL || `http://localhost:${config.PORT}`;
  let relay: MailRelay | null = null;
  const deps = {
    directory: engine.directory,
    embedder: engine.embedder,
    documents: engine.documents,
    maintenance: engine.maintenance,
    jobs: new JobWrites({
      store: engine.jobs,
      log: writeLog,
      // Embedded, a job's node is null: every job of the store is this node's.
      node: operationLog ? nodeId : null,
      progressEveryMs: operationLog ? jobProgressEveryMs : 0,
      now: () => clock.now(),
      onError: (error, jobId) => log?.error({ err: error, jobId }, 'cluster mode: a change of a job was not written'),
    }),
    snapshots: engine.snapshots,
    restore: engine.restore,
    restoreDrain: { timeoutMs: config.RESTORE_DRAIN_TIMEOUT_MS, sleep },
    search: engine.search,
    searches: engine.searches,
    collections: engine.collections,
    fieldIndexes: engine.fieldIndexes,
    vectors: engine.vectors,
    graphLimits: { maxElements: config.GRAPH_MAX_ELEMENTS, maxSubgraphNodes: config.GRAPH_MAX_SUBGRAPH_NODES },
    now: () => clock.now(),
    passwords: argon2Hasher,
    tokens: createTokenService(jwtSecret, config.JWT_TTL_S, clock),
    apiKeys: engine.apiKeys,
    // The engine's clock, so tests can hold time still; a clock set back only delays refills (see TokenBuckets).
    apiKeyRateLimit: new ApiKeyRateLimit({
      rate: config.RATE_LIMIT_RPS,
      burst: config.RATE_LIMIT_BURST,
      now: () => clock.now(),
    }),
    outbox: engine.outbox,
    enqueue: mailQueue(writeLog),
    links: new DownloadLinks(config.DOWNLOAD_SECRET || jwtSecret, config.SIGNED_URL_EXPIRY_S, publicUrl, () =>
      clock.now(),
    ),
    mail: {
      teamAddress: config.MAIL_TEAM_ADDRESS,
      serviceId: config.MAIL_SERVICE_ID,
      publicKey: config.MAIL_PUBLIC_KEY,
      blockedSenders: config.MAIL_BLOCKED_SENDERS.split(',')
        .map((s) => s.trim().toLowerCase())
        .filter(Boolean),
      maxPerHour: config.MAIL_MAX_PER_HOUR,
      releaseFile: `godb-${version}.tar.gz`,
    },
    release: new ReleaseArtifact(
      resolve(config.RELEASE_DIR),
      () => ({
        root: seams.releaseRoot ?? repoRoot,
        webDist: seams.releaseRoot === undefined ? webDistOf(config) : join(seams.releaseRoot, 'web', 'dist'),
        version,
        platform: process.platform,
        arch: process.arch,
        now: clock.now(),
      }),
      { info: (obj, message) => log?.info(obj, message), error: (obj, message) => log?.error(obj, message) },
      storage.releases,
    ),
    kickRelay: () => relay?.kick(),
    log: writeLog,
    commands: new DocumentCommands({
      log: writeLog,
      documents: engine.documents,
      files: engine.files,
      clock: engine.clock,
    }),
  };
  const bootstrap = async () => {
    if (config.SUPERADMIN_EMAIL !== '')
      await bootstrapSuperAdmin(deps, config.SUPERADMIN_EMAIL, config.SUPERADMIN_PASSWORD);
    // Work that was running when this node's process stopped will not resume: its jobs say so rather than show
    // "running" for ever (in cluster mode through the log, for this node's jobs only).
    const node = operationLog ? nodeId : null;
    // A cluster node submits only when it has jobs to abandon: every start would otherwise add an operation.
    if (node === null || engine.jobs.runningOn().includes(node))
      await writeLog.submit({ kind: 'job', method: 'abandon', args: [node, 'restarted'] });
  };
  // In cluster mode the super admin is looked for once the node caught up: another node may have made it already.
  if (!operationLog) await bootstrap();
  const services = createServices(deps);
  const app = await buildApp({
    config,
    services,
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
        memory: () => engine.memory(),
        ...(operationLog && {
          cluster: { ...operationLog.status(), ...duties?.status(), ...(restored && { restoredFrom: restored }) },
        }),
      };
    },
    webDist: webDistOf(config),
    version,
    // The guards time their buckets with the monotonic clock, unless a test holds time still with its own.
    ...(clock !== systemClock && { now: () => clock.now() }),
  });
  log = app.log;
  let closing = false;
  // Cluster mode: the API opens once the node caught up and the super admin is there (made through the log, which
  // may refuse while NATS has no majority: retried, up to every 30 s, until it is made or the node stops).
  const started = operationLog
    ? (async () => {
        app.log.info(
          { ...operationLog.status(), nats_version: operationLog.natsVersion, servers: natsUrls.length },
          'cluster mode: this node is catching up with the replicated log',
        );
        await operationLog.ready;
        for (let waitMs = 1_000; !closing; waitMs = Math.min(waitMs * 2, 30_000)) {
          try {
            await bootstrap();
            break;
          } catch (error) {
            app.log.error({ err: error, retry_in_ms: waitMs }, 'cluster mode: the super admin could not be made');
            await sleep(waitMs);
          }
        }
        if (closing) return;
        operationLog.serve();
        app.log.info(operationLog.status(), 'cluster mode: this node caught up with the replicated log and serves');
      })()
    : Promise.resolve();
  // Index files are checkpointed in the background: the engine decides what is due, by its clock (it keeps no
  // timers); this tick asks it every second. Then indexes with files start loading, so queries find them ready.
  const checkpoints = setInterval(() => {
    try {
      engine.vectors.checkpoint();
    } catch (error) {
      app.log.error({ err: error }, 'a vector index checkpoint failed; the next tick tries again');
    }
    try {
      engine.text.checkpoint();
    } catch (error) {
      app.log.error({ err: error }, 'a text index checkpoint failed; it is tried again after the checkpoint interval');
    }
  }, 1000);
  checkpoints.unref();
  // Tenant restores a crash cut short are finished now, in the background; their tenants answer 503 until then.
  void engine.restore?.resumePending((tenantId, error) =>
    app.log.error(
      { err: error, tenantId },
      'a tenant restore cut short could not be finished; the tenant stays unavailable until it is restored again',
    ),
  );
  engine.vectors.warmUp();
  engine.text.warmUp();
  // Files of documents purged while the store refused are deleted now, or at the next purge.
  void engine.files?.deleteOwed().then(({ deleted, pending, error }) => {
    if (deleted > 0) app.log.info({ deleted }, 'deleted the stored files of purged documents');
    if (error) app.log.warn({ err: error, pending }, 'stored files of purged documents wait for the next purge');
  });
  // Cluster mode: only the lease holder relays, and its marks carry the lease's fencing token.
  relay = new MailRelay(
    operationLog && duties
      ? leasedRelayOutbox(engine.outbox, operationLog, () => duties.lease.token)
      : soleRelayOutbox(engine.outbox, writeLog),
    {
      host: config.SMTP_HOST,
      port: config.SMTP_PORT,
      secure: config.SMTP_SECURE,
      user: config.SMTP_USER,
      password: config.SMTP_PASSWORD,
      from: config.MAIL_FROM,
      retryBaseMs: config.MAIL_RETRY_BASE_MS,
    },
    app.log,
  );
  relay.start();
  const grpc =
    config.GRPC_PORT > 0
      ? await startGrpcServer({
          services,
          host: config.HOST,
          port: config.GRPC_PORT,
          log: app.log,
          ...(operationLog && { started }),
        })
      : null;
  return {
    app,
    grpc,
    engine,
    services,
    cluster: operationLog,
    clusterDuties: duties,
    started,
    async close() {
      closing = true;
      // 1. Both transports stop accepting at once, and the mail relay stops starting deliveries. In-flight requests
      //    finish; any HTTP connection still open after inFlightGraceMs is cut (gRPC's close does the same).
      const cut = setTimeout(() => app.server.closeAllConnections(), inFlightGraceMs);
      // Node closes the connections idle when the stop begins, but one busy then stays open after its answer, for
      // the keep-alive timeout (72 s): close each as soon as it is idle.
      const sweep = setInterval(() => app.server.closeIdleConnections(), 50);
      cut.unref();
      sweep.unref();
      clearInterval(checkpoints);
      await Promise.all([relay?.stop(), grpc?.close(), app.close()]);
      clearTimeout(cut);
      clearInterval(sweep);
      // 2. Then the log (no more operations applied), and the engine, nothing left to call it: embedding workers,
      //    then index files, then SQLite last.
      await duties?.stop();
      await operationLog?.close();
      await engine.close();
      storage.close();
    },
  };
}
