// Issue #17 (cluster mode): two GoDB server processes on a three-node NATS JetStream cluster. One is killed with
// SIGKILL while the other keeps taking a stream of writes; restarted on its data folder, it replays what it missed
// and ends with the same documents, versions and vectors. The deadlines below only detect a hang; nothing is timed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { startNatsCluster } from '../server/src/test-support/nats-cluster.js';
import { startServerProcess, type ServerProcess } from './support/server-process.js';

async function api(server: ServerProcess, method: string, path: string, token?: string, body?: unknown) {
  const res = await fetch(`${server.baseUrl}${path}`, {
    method,
    headers: {
      ...(body !== undefined && { 'content-type': 'application/json' }),
      ...(token && { authorization: `Bearer ${token}` }),
    },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

interface ClusterReadyz {
  cluster?: { node_id: string; applied_seq: number; lag: number; lease_holder?: boolean };
}

/** Whether the node holds the lease on the cluster's singleton work, from /readyz. */
const leaseHolder = async (server: ServerProcess) =>
  ((await (await fetch(`${server.baseUrl}/readyz`)).json()) as ClusterReadyz).cluster?.lease_holder ?? false;

const appliedOf = async (server: ServerProcess) =>
  ((await (await fetch(`${server.baseUrl}/readyz`)).json()) as ClusterReadyz).cluster?.applied_seq ?? -1;

/** Polls until `server` applied `seq` (a hang detector after 60 s, not a timing). */
async function appliedUntil(server: ServerProcess, seq: number): Promise<void> {
  const deadline = Date.now() + 60_000;
  while ((await appliedOf(server)) < seq) {
    assert.ok(Date.now() < deadline, `node never applied ${seq}: ${await appliedOf(server)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Every document version of the tenant with its chunks' vectors, hashed, read from a stopped node's store. */
function digest(dataDir: string, tenantId: string): { documents: number; hash: string } {
  const db = new Database(join(dataDir, 'godb.sqlite'), { readonly: true });
  try {
    const rows = db
      .prepare(
        `SELECT d.id, d.version, d.superseded, d.deleted_at, d.created_at, d.updated_at, d.title,
                (SELECT group_concat(hex(c.vector), ',') FROM chunks c WHERE c.doc_seq = d.seq) AS vectors
         FROM documents d WHERE d.tenant_id = ? ORDER BY d.id`,
      )
      .all(tenantId);
    return { documents: rows.length, hash: createHash('sha256').update(JSON.stringify(rows)).digest('hex') };
  } finally {
    db.close();
  }
}

test('a GoDB node killed with SIGKILL during writes on another node catches up when restarted', async () => {
  const nats = await startNatsCluster();
  const dirs = ['a', 'b'].map((name) => mkdtempSync(join(tmpdir(), `godb-e2e-cluster-${name}-`)));
  const env = (name: string) => ({
    NATS_URL: nats.url,
    NODE_ID: name,
    JWT_SECRET: 'a-cluster-wide-secret-of-32-characters-or-more',
    RATE_LIMIT_RPS: '10000',
    RATE_LIMIT_BURST: '10000',
    CLUSTER_LEASE_TTL_MS: '3000',
  });
  const servers: ServerProcess[] = [];
  try {
    // b starts first and takes the lease on the cluster's singleton work; it is the node killed below.
    let b = await startServerProcess(env('b'), dirs[1]);
    servers.push(b);
    const a = await startServerProcess(env('a'), dirs[0]);
    servers.push(a);
    assert.equal(await leaseHolder(b), true, 'the node started first holds the lease');
    assert.equal(await leaseHolder(a), false);
    const tenantId = randomUUID();
    const email = `admin-${tenantId}@example.com`;
    const registered = await api(a, 'POST', '/auth/register', undefined, {
      email,
      password: 'password-1234',
      tenant_id: tenantId,
    });
    assert.equal(registered.status, 201, JSON.stringify(registered.body));
    // The user registered on a logs in on b.
    await appliedUntil(b, await appliedOf(a));
    const login = await api(b, 'POST', '/auth/login', undefined, { email, password: 'password-1234' });
    assert.equal(login.status, 200, JSON.stringify(login.body));
    const token = login.body.token as string;

    const total = 40;
    let written = 0;
    let failure: unknown = null;
    const writtenAtLeast = async (n: number) => {
      while (written < n && failure === null) await new Promise((resolve) => setTimeout(resolve, 20));
    };
    const writer = (async () => {
      for (let i = 0; i < total; i += 1) {
        const res = await api(a, 'POST', '/api/v1/documents', token, {
          id: `doc-${i}`,
          title: `Document ${i}`,
          content: `Written on node a while node b dies and comes back (${i}).`,
        });
        assert.equal(res.status, 201, JSON.stringify(res.body));
        written += 1;
      }
    })().catch((error: unknown) => {
      failure = error;
    });
    await writtenAtLeast(10);
    assert.equal(await b.stop('SIGKILL'), null);
    const killedAt = performance.now();
    servers.splice(servers.indexOf(b), 1);
    // The lease expires (CLUSTER_LEASE_TTL_MS, 3 s here) and a takes it; printed, not asserted on time.
    const deadline = Date.now() + 60_000;
    while (!(await leaseHolder(a))) {
      assert.ok(Date.now() < deadline, 'a never took the lease of the killed node');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    console.log(
      `lease hand-over after its holder was killed with SIGKILL: ${Math.round(performance.now() - killedAt)} ms`,
    );
    await writtenAtLeast(25);
    b = await startServerProcess(env('b'), dirs[1]);
    servers.push(b);
    await writer;
    if (failure !== null) throw failure;
    const deleted = await api(b, 'DELETE', '/api/v1/documents/doc-7', token);
    assert.equal(deleted.status, 200, JSON.stringify(deleted.body));
    await appliedUntil(a, await appliedOf(b));
    await appliedUntil(b, await appliedOf(a));
    const missing = await api(a, 'GET', '/api/v1/documents/doc-7', token);
    assert.equal(missing.status, 404);
    const last = await api(b, 'GET', `/api/v1/documents/doc-${total - 1}`, token);
    assert.equal(last.status, 200, JSON.stringify(last.body));

    for (const server of servers.splice(0)) assert.equal(await server.stop(), 0);
    const [digestA, digestB] = dirs.map((dir) => digest(dir, tenantId));
    assert.equal(digestA!.documents, total);
    assert.deepEqual(digestB, digestA);
  } finally {
    await Promise.all(servers.map((s) => s.stop('SIGKILL')));
    await nats.stop();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  }
});
