import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jetstreamManager } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import { connect } from '@nats-io/transport-node';
import { startNatsCluster, type NatsCluster } from '../../server/src/test-support/nats-cluster.js';
import { api, startServerProcess, type ServerProcess } from './server-process.js';

/**
 * The shard stream of a tenant's data (server/src/cluster/log/placement.ts): its entry in the KV shard map `godb-shards`,
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

/** What /readyz says of a node's place in the cluster (issue #17). */
export interface ClusterStatus {
  node_id: string;
  applied_seq: number;
  lag: number;
  lease_holder?: boolean;
  latest_snapshot?: { id: string; seq: number };
  truncated_before_seq?: number;
  restored_snapshot?: { id: string; seq: number };
}

/** A node's cluster status from /readyz (undefined when it answers none). */
export async function clusterStatus(server: ServerProcess): Promise<ClusterStatus | undefined> {
  return ((await (await fetch(`${server.baseUrl}/readyz`)).json()) as { cluster?: ClusterStatus }).cluster;
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

/** The cluster's secret and limits every node of these tests shares (a request stream is not throttled). */
const clusterEnv = {
  JWT_SECRET: 'a-cluster-wide-secret-of-32-characters-or-more',
  RATE_LIMIT_RPS: '10000',
  RATE_LIMIT_BURST: '10000',
};

/** GoDB server processes on one three-node NATS JetStream cluster, each node with its own data folder, by name. */
export interface ClusterNodes {
  readonly nats: NatsCluster;
  /** The data folder of node `name` (kept while it is stopped, until `wipe` or `close`). */
  dir(name: string): string;
  /** Starts node `name` (again, on its folder, after a stop) and waits until it answers /readyz. */
  start(name: string): Promise<ServerProcess>;
  /** Stops a node with `signal` (SIGTERM: a graceful stop) and answers its exit code (null when killed). */
  stop(node: ServerProcess, signal?: NodeJS.Signals): Promise<number | null>;
  /** Stops every running node gracefully, in the order they started, and answers their exit codes. */
  stopAll(): Promise<(number | null)[]>;
  /** Removes the data folder of a stopped node, as if its disk was replaced. */
  wipe(name: string): void;
  /** Kills what still runs, stops NATS and removes every data folder: for `finally` or `after`. */
  close(): Promise<void>;
}

/**
 * Starts a NATS JetStream cluster and makes a data folder per node name (`godb-e2e-<prefix>-<name>-…`); nodes start
 * when the test says (`start`), with NATS_URL, NODE_ID, a shared JWT secret, no rate limit and `env`.
 *
 * @example const cluster = await startClusterNodes(['a', 'b'], 'cluster', { CLUSTER_LEASE_TTL_MS: '3000' });
 */
export async function startClusterNodes(
  names: readonly string[],
  prefix: string,
  env: Record<string, string> = {},
): Promise<ClusterNodes> {
  const nats = await startNatsCluster();
  const dirs = new Map(names.map((name) => [name, mkdtempSync(join(tmpdir(), `godb-e2e-${prefix}-${name}-`))]));
  const running: ServerProcess[] = [];
  const dir = (name: string) => {
    const found = dirs.get(name);
    if (found === undefined) throw new Error(`no node ${name}: ${names.join(', ')}`);
    return found;
  };
  const stop = async (node: ServerProcess, signal?: NodeJS.Signals) => {
    // A node is forgotten before it is stopped: a killed process is never stopped twice (it would wait for ever).
    running.splice(running.indexOf(node), 1);
    return node.stop(signal);
  };
  return {
    nats,
    dir,
    start: async (name) => {
      const node = await startServerProcess({ NATS_URL: nats.url, NODE_ID: name, ...clusterEnv, ...env }, dir(name));
      running.push(node);
      return node;
    },
    stop,
    stopAll: async () => {
      const codes: (number | null)[] = [];
      for (const node of [...running]) codes.push(await stop(node));
      return codes;
    },
    wipe: (name) => rmSync(dir(name), { recursive: true, force: true }),
    close: async () => {
      await Promise.all(running.splice(0).map((node) => node.stop('SIGKILL')));
      await nats.stop();
      for (const folder of dirs.values()) rmSync(folder, { recursive: true, force: true });
    },
  };
}

/**
 * Registers a new tenant's admin on `registerOn`, waits until every node in `nodes` applied the registration, and
 * logs in on `loginOn`: the tenant's id and the admin's token.
 */
export async function registerAdmin(
  nodes: readonly ServerProcess[],
  registerOn: ServerProcess,
  loginOn: ServerProcess,
): Promise<{ tenantId: string; token: string }> {
  const tenantId = randomUUID();
  const credentials = { email: `admin-${tenantId}@example.com`, password: 'password-1234' };
  const registered = await api(registerOn, 'POST', '/auth/register', undefined, {
    ...credentials,
    tenant_id: tenantId,
  });
  if (registered.status !== 201)
    throw new Error(`register answered ${registered.status}: ${JSON.stringify(registered.body)}`);
  await appliedEverywhere(nodes, await appliedSeq(registerOn));
  const login = await api(loginOn, 'POST', '/auth/login', undefined, credentials);
  if (login.status !== 200) throw new Error(`login answered ${login.status}: ${JSON.stringify(login.body)}`);
  return { tenantId, token: login.body.token as string };
}

export { tenantDigest, type TenantDigest } from '../../server/src/test-support/digest.js';
