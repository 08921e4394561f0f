import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { createError } from '@godb/contract';
import { errorBody } from './error-reply.js';

/** What a cluster node restores before its store opens. */
export interface RestoringState {
  readonly node: string;
  readonly snapshot: { readonly id: string; readonly seq: number; readonly bytes: number };
}

/** A running responder: its base URL, and how to stop it (before the real server listens on the port). */
export interface RestoringResponder {
  readonly url: string;
  close(): Promise<void>;
}

/**
 * Answers on PORT while a cluster node restores a cluster snapshot, before its store (and so its API) exists: a
 * large snapshot takes minutes, and a node that answered nothing meanwhile would look dead to its orchestrator.
 * `/healthz` answers 200 (alive); `/readyz` 503 with `cluster.restoring_snapshot` (id, sequence, bytes); every
 * other request 503 `CLUSTER_CATCHING_UP` with `Retry-After`, as a node catching up with the log answers.
 *
 * @example const responder = await startRestoringResponder('0.0.0.0', 8081, state); …; await responder.close();
 */
export async function startRestoringResponder(
  host: string,
  port: number,
  state: RestoringState,
): Promise<RestoringResponder> {
  const server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0];
    const send = (status: number, body: object, headers: Record<string, string> = {}) => {
      response.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
      response.end(JSON.stringify(body));
    };
    if (path === '/healthz') return send(200, { status: 'ok' });
    if (path === '/readyz') {
      return send(503, {
        status: 'not ready',
        loading: [],
        cluster: { node_id: state.node, applied_seq: 0, restoring_snapshot: { ...state.snapshot } },
      });
    }
    const error = createError(
      'CLUSTER_CATCHING_UP',
      { started_behind: state.snapshot.seq, applied: 0, target: state.snapshot.seq },
      { details: { retry_after: 5 } },
    );
    return send(error.status, errorBody(error, randomUUID()), { 'retry-after': '5' });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  return {
    url: `http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
