import type { FastifyInstance } from 'fastify';
import type { ClusterDuties } from '../cluster/cluster-duties.js';
import type { NatsLog } from '../cluster/log/nats-log.js';
import type { Storage } from '../config/storage.js';
import type { Engine } from '../engine/engine.js';
import type { ImportPool } from '../service/documents/import-workers/import-pool.js';
import type { MailRelay } from '../service/mail/mail-relay.js';
import type { RunningGrpc } from '../transport/grpc/grpc-server.js';

/** How long a stop lets in-flight requests finish before their connections are cut. */
const inFlightGraceMs = 5_000;

/** What a running server closes, from the transports in to the store. */
export interface RunningParts {
  readonly app: FastifyInstance;
  readonly grpc: RunningGrpc | null;
  readonly relay: MailRelay;
  readonly checkpoints: NodeJS.Timeout;
  readonly duties: ClusterDuties | null;
  readonly cluster: NatsLog | null;
  readonly engine: Engine;
  /** The import workers (IMPORT_THREADS), closed once the requests under way have finished. */
  readonly importPool?: ImportPool | null;
  readonly storage: Storage;
}

/**
 * Stops a server in order: the transports and the mail relay first (in-flight requests finish, up to a grace
 * period), then the log (no more operations applied), then the engine, nothing left to call it.
 *
 * @example await shutDown({ app, grpc, relay, checkpoints, duties, cluster, engine, storage });
 */
export async function shutDown(parts: RunningParts): Promise<void> {
  const { app } = parts;
  // 1. Both transports stop accepting at once, and the mail relay stops starting deliveries. In-flight requests
  //    finish; any HTTP connection still open after inFlightGraceMs is cut (gRPC's close does the same).
  const cut = setTimeout(() => app.server.closeAllConnections(), inFlightGraceMs);
  // Node closes the connections idle when the stop begins, but one busy then stays open after its answer, for
  // the keep-alive timeout (72 s): close each as soon as it is idle.
  const sweep = setInterval(() => app.server.closeIdleConnections(), 50);
  cut.unref();
  sweep.unref();
  clearInterval(parts.checkpoints);
  await Promise.all([parts.relay.stop(), parts.grpc?.close(), app.close()]);
  clearTimeout(cut);
  clearInterval(sweep);
  await parts.importPool?.close();
  // 2. Then the log (no more operations applied), and the engine, nothing left to call it: embedding workers,
  //    then index files, then SQLite last.
  await parts.duties?.stop();
  await parts.cluster?.close();
  await parts.engine.close();
  parts.storage.close();
}
