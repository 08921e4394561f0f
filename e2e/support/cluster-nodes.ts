import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import type { ServerProcess } from './server-process.js';

/** The stream every GoDB node applies (server/src/cluster/nats-log.ts). */
export const opsStream = 'GODB_OPS';

/**
 * The index (0-based, as `NatsCluster.kill` takes it) of the NATS server leading the operations stream now, read from
 * JetStream's stream info (`cluster.leader`, a server name `n1`…`n3`). Waits while an election is under way.
 */
export async function streamLeader(urls: readonly string[]): Promise<number> {
  const nc = await connect({ servers: [...urls], name: 'godb-test-leader-probe' });
  try {
    const jsm = await jetstreamManager(nc);
    // A bound for a broken cluster, not a timing.
    for (let attempt = 0; attempt < 300; attempt += 1) {
      const leader = (await jsm.streams.info(opsStream).catch(() => null))?.cluster?.leader;
      const index = Number(/^n(\d+)$/.exec(leader ?? '')?.[1]) - 1;
      if (index >= 0) return index;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`stream ${opsStream} has no leader`);
  } finally {
    await nc.close();
  }
}

/** A node's place in the log, from /readyz (-1 while it does not answer). */
export async function appliedSeq(server: ServerProcess): Promise<number> {
  try {
    const body = (await (await fetch(`${server.baseUrl}/readyz`)).json()) as { cluster?: { applied_seq: number } };
    return body.cluster?.applied_seq ?? -1;
  } catch {
    return -1;
  }
}

/** Polls until every node applied `seq` (a hang detector after `boundMs`, not a timing). */
export async function appliedEverywhere(servers: readonly ServerProcess[], seq: number, boundMs = 120_000) {
  const deadline = Date.now() + boundMs;
  for (const server of servers) {
    while ((await appliedSeq(server)) < seq) {
      if (Date.now() > deadline) throw new Error(`node ${server.baseUrl} never applied ${seq}: ${server.output()}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

export { tenantDigest, type TenantDigest } from '../../server/src/test-support/digest.js';
