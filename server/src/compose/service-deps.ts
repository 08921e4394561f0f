import { availableParallelism } from 'node:os';
import { join, resolve } from 'node:path';
import type { ClusterDuties } from '../cluster/cluster-duties.js';
import type { NatsLog } from '../cluster/log/nats-log.js';
import type { Config } from '../config/env.js';
import { resolveJwtSecret } from '../config/jwt-secret.js';
import type { Clock } from '../engine/clock.js';
import type { Engine } from '../engine/engine.js';
import type { ObjectStore } from '../engine/files/object-store.js';
import { DocumentCommands } from '../engine/operations/document-commands.js';
import type { NodeLog } from '../engine/operations/operation.js';
import { ApiKeyRateLimit } from '../service/auth/api-keys.js';
import { argon2Hasher } from '../service/auth/passwords.js';
import { createTokenService } from '../service/auth/tokens.js';
import { ImportPool, importThreadsOf } from '../service/documents/import-workers/import-pool.js';
import { JobWrites, jobProgressEveryMs } from '../service/job-writes.js';
import { DownloadLinks } from '../service/mail/download-links.js';
import { mailQueue } from '../service/mail/relay-outbox.js';
import { ReleaseArtifact } from '../service/mail/release-artifact.js';
import type { ServiceDeps } from '../service/use-cases.js';
import { clusterDepsOf } from './cluster-state.js';
import { repoRoot, webDistOf } from './install.js';
import type { NodeLogger } from './node-logger.js';
import { sleep } from './sleep.js';

export interface ServiceDepsOptions {
  readonly config: Config;
  readonly engine: Engine;
  /** The one log every write is submitted to. */
  readonly writeLog: NodeLog;
  /** True in cluster mode: jobs carry this node's id and report their progress through the log. */
  readonly clustered: boolean;
  /** Cluster mode's log and duties (GET /api/v1/cluster reads them), or nulls embedded. */
  readonly cluster: NatsLog | null;
  readonly duties: ClusterDuties | null;
  readonly nodeId: string;
  readonly clock: Clock;
  readonly version: string;
  /** The storage provider's shared release archives, or null. */
  readonly releases: ObjectStore | null;
  /** The install a release is built from (see ServerSeams.releaseRoot). */
  readonly releaseRoot: string | undefined;
  readonly logger: NodeLogger;
  /** Wakes the mail relay once it exists: a message was queued. */
  readonly kickRelay: () => void;
}

/**
 * What the services are built on: the engine's parts, the one write log, and the settings and helpers each use case
 * needs (tokens, rate limits, download links, mail, the release artifact).
 *
 * @example const services = createServices(serviceDepsOf({ config, engine, writeLog, clustered: false, … }));
 */
export function serviceDepsOf(options: ServiceDepsOptions): ServiceDeps {
  const { config, engine, writeLog, clustered, nodeId, clock, version, releaseRoot, logger } = options;
  const jwtSecret = resolveJwtSecret(config.DATA_DIR, config.JWT_SECRET);
  const publicUrl = config.PUBLIC_URL || `http://localhost:${config.PORT}`;
  const importThreads = importThreadsOf(config.IMPORT_THREADS, availableParallelism());
  return {
    directory: engine.directory,
    embedder: engine.embedder,
    documents: engine.documents,
    maintenance: engine.maintenance,
    jobs: new JobWrites({
      store: engine.jobs,
      log: writeLog,
      // Embedded, a job's node is null: every job of the store is this node's.
      node: clustered ? nodeId : null,
      progressEveryMs: clustered ? jobProgressEveryMs : 0,
      now: () => clock.now(),
      onError: (error, jobId) => logger.app?.error({ err: error, jobId }, 'a change of a job was not written'),
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
    partitions: options.cluster?.partitions ?? null,
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
        root: releaseRoot ?? repoRoot,
        webDist: releaseRoot === undefined ? webDistOf(config) : join(releaseRoot, 'web', 'dist'),
        version,
        platform: process.platform,
        arch: process.arch,
        now: clock.now(),
      }),
      {
        info: (obj, message) => logger.app?.info(obj, message),
        error: (obj, message) => logger.app?.error(obj, message),
      },
      options.releases,
    ),
    kickRelay: options.kickRelay,
    ...clusterDepsOf({ config, nodeId, cluster: options.cluster, duties: options.duties }),
    log: writeLog,
    // Its workers start on the first import; closed on shutdown once the imports under way are prepared.
    importPool: importThreads > 0 ? new ImportPool(importThreads) : null,
    commands: new DocumentCommands({
      log: writeLog,
      documents: engine.documents,
      files: engine.files,
      clock: engine.clock,
    }),
  };
}
