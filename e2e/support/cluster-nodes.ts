import { jetstreamManager } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import { connect } from '@nats-io/transport-node';
import type { ServerProcess } from './server-process.js';

/**
 * The shard stream of a tenant's data (server/src/cluster/nats-log.ts): its entry in the KV shard map `godb-shards`,
 * made on the tenant's first write.
 */
export async function tenantStream(urls: readonly string[], tenantId: string): Promise<string> {
  const nc = await connect({ servers: [...urls], name: 'godb-test-shard-probe' });
  try {
    const kv = await new Kvm(nc).open('godb-shards');
    const entry = await kv.get(`tenant.${Buffer.from(tenantId).toString('base64url')}`);
    if (!entry) throw new Error(`tenant ${tenantId} has no shard yet (no write of it)`);
    return `godb-shard-${entry.string().padStart(2, '0')}`;
  } finally {
    await nc.close();
  }
}

/**
 * The index (0-based, as `NatsCluster.kill` takes it) of the NATS server leading `opsStream` (a shard stream, see
 * tenantStream) now, read from JetStream's stream info (`cluster.leader`, a server name `n1`…`n3`). Waits while an
 * election is under way.
 */
export async function streamLeader(urls: readonly string[], opsStream: string): Promise<number> {
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

/** A node's place in each shard (index = shard), from /readyz (empty while it does not answer). */
async function appliedShards(server: ServerProcess): Promise<number[]> {
  try {
    const body = (await (await fetch(`${server.baseUrl}/readyz`)).json()) as {
      cluster?: { shards: { applied_seq: number }[] };
    };
    return body.cluster?.shards.map((s) => s.applied_seq) ?? [];
  } catch {
    return [];
  }
}

/** The highest place of each shard that X-GoDB-Seq tokens (`0:17,5:42`) name, as one token. */
export function highestOf(tokens: Iterable<string>): string {
  const highest = new Map<number, number>();
  for (const token of tokens) {
    for (const pair of token.split(',').filter(Boolean)) {
      const [shard, seq] = pair.split(':').map(Number) as [number, number];
      highest.set(shard, Math.max(highest.get(shard) ?? 0, seq));
    }
  }
  return [...highest].map(([shard, seq]) => `${shard}:${seq}`).join(',');
}

/**
 * Polls until every node applied `seq`: a number is operations over every shard (/readyz `applied_seq`), a string
 * an X-GoDB-Seq token (each shard it names). A hang detector after `boundMs`, not a timing.
 */
export async function appliedEverywhere(servers: readonly ServerProcess[], seq: number | string, boundMs = 120_000) {
  const deadline = Date.now() + boundMs;
  const wanted = typeof seq === 'string' ? highestOf([seq]).split(',').filter(Boolean) : [];
  const reached = async (server: ServerProcess) => {
    if (typeof seq === 'number') return (await appliedSeq(server)) >= seq;
    const shards = await appliedShards(server);
    return wanted.every((pair) => {
      const [shard, want] = pair.split(':').map(Number) as [number, number];
      return (shards[shard] ?? -1) >= want;
    });
  };
  for (const server of servers) {
    while (!(await reached(server))) {
      if (Date.now() > deadline) throw new Error(`node ${server.baseUrl} never applied ${seq}: ${server.output()}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

export { tenantDigest, type TenantDigest } from '../../server/src/test-support/digest.js';
