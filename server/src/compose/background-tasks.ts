import type { FastifyInstance } from 'fastify';
import type { ClusterDuties } from '../cluster/cluster-duties.js';
import type { NatsLog } from '../cluster/log/nats-log.js';
import type { Config } from '../config/env.js';
import type { Engine } from '../engine/engine.js';
import type { NodeLog } from '../engine/operations/operation.js';
import { bootstrapSuperAdmin } from '../service/auth/bootstrap-superadmin.js';
import type { AuthDeps } from '../service/auth/deps.js';
import { MailRelay } from '../service/mail/mail-relay.js';
import { leasedRelayOutbox, soleRelayOutbox } from '../service/mail/relay-outbox.js';
import { sleep } from './sleep.js';

type AppLog = FastifyInstance['log'];

export interface BootstrapOptions {
  readonly config: Config;
  readonly deps: AuthDeps;
  readonly engine: Engine;
  readonly writeLog: NodeLog;
  /** Cluster mode's replicated log, or null for one embedded node. */
  readonly cluster: NatsLog | null;
  readonly nodeId: string;
}

/**
 * What a node does once before it serves: makes the configured super admin, and marks the jobs its previous
 * process left running as abandoned.
 *
 * @example const bootstrap = bootstrapOf({ config, deps, engine, writeLog, cluster: null, nodeId }); await bootstrap();
 */
export function bootstrapOf(options: BootstrapOptions): () => Promise<void> {
  const { config, deps, engine, writeLog, cluster, nodeId } = options;
  return async () => {
    if (config.SUPERADMIN_EMAIL !== '')
      await bootstrapSuperAdmin(deps, config.SUPERADMIN_EMAIL, config.SUPERADMIN_PASSWORD);
    // Work that was running when this node's process stopped will not resume: its jobs say so rather than show
    // "running" for ever (in cluster mode through the log, for this node's jobs only).
    const node = cluster ? nodeId : null;
    // A cluster node submits only when it has jobs to abandon: every start would otherwise add an operation.
    if (node === null || engine.jobs.runningOn().includes(node))
      await writeLog.submit({ kind: 'job', method: 'abandon', args: [node, 'restarted'] });
  };
}

export interface ClusterStartOptions {
  readonly cluster: NatsLog;
  /** How many NATS servers NATS_URL names, for the log line. */
  readonly servers: number;
  readonly bootstrap: () => Promise<void>;
  readonly log: AppLog;
  /** True once the server is closing: the node then stops trying and never serves. */
  readonly closing: () => boolean;
}

/**
 * Cluster mode: the API opens once the node caught up and the super admin is there (made through the log, which
 * may refuse while NATS has no majority: retried, up to every 30 s, until it is made or the node stops).
 *
 * @example const started = clusterStarted({ cluster, servers: 3, bootstrap, log: app.log, closing: () => closing });
 */
export async function clusterStarted(options: ClusterStartOptions): Promise<void> {
  const { cluster, bootstrap, log, closing } = options;
  log.info(
    { ...cluster.status(), nats_version: cluster.natsVersion, servers: options.servers },
    'cluster mode: this node is catching up with the replicated log',
  );
  await cluster.ready;
  for (let waitMs = 1_000; !closing(); waitMs = Math.min(waitMs * 2, 30_000)) {
    try {
      await bootstrap();
      break;
    } catch (error) {
      log.error({ err: error, retry_in_ms: waitMs }, 'cluster mode: the super admin could not be made');
      await sleep(waitMs);
    }
  }
  if (closing()) return;
  cluster.serve();
  log.info(cluster.status(), 'cluster mode: this node caught up with the replicated log and serves');
}

/**
 * The engine's upkeep once the app exists: index checkpoints every second, tenant restores a crash cut short,
 * index warm-ups, and the files of purged documents still owed a deletion. Answers the checkpoint timer.
 *
 * @example const checkpoints = startEngineUpkeep(engine, app.log); clearInterval(checkpoints);
 */
export function startEngineUpkeep(engine: Engine, log: AppLog): NodeJS.Timeout {
  // Index files are checkpointed in the background: the engine decides what is due, by its clock (it keeps no
  // timers); this tick asks it every second. Then indexes with files start loading, so queries find them ready.
  const checkpoints = setInterval(() => {
    try {
      engine.vectors.checkpoint();
    } catch (error) {
      log.error({ err: error }, 'a vector index checkpoint failed; the next tick tries again');
    }
    try {
      engine.text.checkpoint();
    } catch (error) {
      log.error({ err: error }, 'a text index checkpoint failed; it is tried again after the checkpoint interval');
    }
  }, 1000);
  checkpoints.unref();
  // Tenant restores a crash cut short are finished now, in the background; their tenants answer 503 until then.
  void engine.restore?.resumePending((tenantId, error) =>
    log.error(
      { err: error, tenantId },
      'a tenant restore cut short could not be finished; the tenant stays unavailable until it is restored again',
    ),
  );
  engine.vectors.warmUp();
  engine.text.warmUp();
  // Files of documents purged while the store refused are deleted now, or at the next purge.
  void engine.files?.deleteOwed().then(({ deleted, pending, error }) => {
    if (deleted > 0) log.info({ deleted }, 'deleted the stored files of purged documents');
    if (error) log.warn({ err: error, pending }, 'stored files of purged documents wait for the next purge');
  });
  return checkpoints;
}

export interface MailRelayOptions {
  readonly config: Config;
  readonly engine: Engine;
  readonly writeLog: NodeLog;
  readonly cluster: NatsLog | null;
  readonly duties: ClusterDuties | null;
  readonly log: AppLog;
}

/**
 * Starts delivering the outbox by SMTP. Cluster mode: only the lease holder relays, and its marks carry the lease's
 * fencing token.
 *
 * @example const relay = startMailRelay({ config, engine, writeLog, cluster: null, duties: null, log: app.log });
 */
export function startMailRelay(options: MailRelayOptions): MailRelay {
  const { config, engine, cluster, duties } = options;
  const relay = new MailRelay(
    cluster
      ? leasedRelayOutbox(engine.outbox, cluster, () => duties?.lease.token ?? null)
      : soleRelayOutbox(engine.outbox, options.writeLog),
    {
      host: config.SMTP_HOST,
      port: config.SMTP_PORT,
      secure: config.SMTP_SECURE,
      user: config.SMTP_USER,
      password: config.SMTP_PASSWORD,
      from: config.MAIL_FROM,
      retryBaseMs: config.MAIL_RETRY_BASE_MS,
    },
    options.log,
  );
  relay.start();
  return relay;
}
