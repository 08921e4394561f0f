// Issue #17 (cluster mode), catch-up from a snapshot with real processes: two GoDB server processes on a three-node
// NATS JetStream cluster, a cluster snapshot every 10 operations. The lease holder snapshots and truncates the log;
// the other node is killed, its data folder wiped, and restarted: it restores the snapshot before it opens (PORT
// answers meanwhile), replays the rest and ends with the same documents. The deadlines only detect a hang.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startNatsCluster } from '../server/src/test-support/nats-cluster.js';
import { appliedEverywhere, appliedSeq, tenantDigest } from './support/cluster-nodes.js';
import { startServerProcess, type ServerProcess } from './support/server-process.js';

interface Readyz {
  cluster?: {
    lease_holder?: boolean;
    latest_snapshot?: { id: string; seq: number };
    truncated_before_seq?: number;
    restored_snapshot?: { id: string; seq: number };
  };
}

const readyz = async (server: ServerProcess) =>
  ((await (await fetch(`${server.baseUrl}/readyz`)).json()) as Readyz).cluster;

async function post(server: ServerProcess, path: string, body: unknown, token?: string) {
  const res = await fetch(`${server.baseUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token && { authorization: `Bearer ${token}` }) },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

test('a GoDB process whose data folder is wiped restores the cluster snapshot, replays the rest and converges', async () => {
  const nats = await startNatsCluster();
  const dirs = ['a', 'b'].map((name) => mkdtempSync(join(tmpdir(), `godb-e2e-snap-${name}-`)));
  const env = (name: string) => ({
    NATS_URL: nats.url,
    NODE_ID: name,
    JWT_SECRET: 'a-cluster-wide-secret-of-32-characters-or-more',
    RATE_LIMIT_RPS: '10000',
    RATE_LIMIT_BURST: '10000',
    CLUSTER_SNAPSHOT_EVERY_OPS: '10',
    CLUSTER_SNAPSHOT_EVERY_MIN: '0',
  });
  const servers: ServerProcess[] = [];
  try {
    const a = await startServerProcess(env('a'), dirs[0]);
    servers.push(a);
    let b = await startServerProcess(env('b'), dirs[1]);
    servers.push(b);
    assert.equal((await readyz(a))?.lease_holder, true, 'the node started first holds the lease');
    const tenantId = randomUUID();
    const email = `admin-${tenantId}@example.com`;
    assert.equal(
      (await post(a, '/auth/register', { email, password: 'password-1234', tenant_id: tenantId })).status,
      201,
    );
    const token = (await post(a, '/auth/login', { email, password: 'password-1234' })).body.token as string;
    const ids: string[] = [];
    const write = async (server: ServerProcess, id: string) => {
      const res = await post(server, '/api/v1/documents', { id, title: id, content: `Document ${id}.` }, token);
      assert.equal(res.status, 201, JSON.stringify(res.body));
      ids.push(id);
    };
    for (let i = 0; i < 24; i += 1) await write(i % 2 === 0 ? a : b, `before-${i}`);
    // The holder snapshots once 10 operations passed, and truncates once b reported it applied that far.
    const deadline = Date.now() + 120_000;
    let status = await readyz(a);
    while (!status?.truncated_before_seq) {
      assert.ok(Date.now() < deadline, `the log was never truncated: ${JSON.stringify(status)}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
      status = await readyz(a);
    }
    console.log(
      `snapshot ${status.latest_snapshot?.id} at ${status.latest_snapshot?.seq}; log truncated below ${status.truncated_before_seq}`,
    );

    assert.equal(await b.stop('SIGKILL'), null);
    servers.splice(servers.indexOf(b), 1);
    rmSync(dirs[1]!, { recursive: true, force: true });
    for (let i = 0; i < 4; i += 1) await write(a, `while-wiped-${i}`);
    const restarted = performance.now();
    b = await startServerProcess(env('b'), dirs[1]);
    servers.push(b);
    console.log(`wiped node restored the snapshot and caught up in ${Math.round(performance.now() - restarted)} ms`);
    // The newest verified snapshot when it started: the one seen above, or one the holder took since.
    const restored = (await readyz(b))?.restored_snapshot;
    assert.ok(restored && restored.seq >= status.latest_snapshot!.seq, JSON.stringify(restored));
    await write(b, 'after-restore');
    await appliedEverywhere(servers, await appliedSeq(b));

    for (const server of servers.splice(0)) assert.equal(await server.stop(), 0);
    const [digestA, digestB] = dirs.map((dir) => tenantDigest(dir, tenantId));
    assert.deepEqual(digestB!.collections, digestA!.collections);
    assert.deepEqual(digestB!.repeated, []);
    for (const id of ids) assert.ok(digestB!.ids.has(id), `acknowledged ${id} is on the restored node`);
  } finally {
    await Promise.all(servers.map((s) => s.stop('SIGKILL')));
    await nats.stop();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  }
});
