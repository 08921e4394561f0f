// Issue #17 (cluster mode): two GoDB server processes on a three-node NATS JetStream cluster. One is killed with
// SIGKILL while the other keeps taking a stream of writes; restarted on its data folder, it replays what it missed
// and ends with the same documents, versions and vectors. The deadlines below only detect a hang; nothing is timed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import {
  appliedEverywhere,
  appliedSeq,
  clusterStatus,
  registerAdmin,
  startClusterNodes,
} from './support/cluster-nodes.js';
import { api, type ServerProcess } from './support/server-process.js';

/** Whether the node holds the lease on the cluster's singleton work, from /readyz. */
const leaseHolder = async (server: ServerProcess) => (await clusterStatus(server))?.lease_holder ?? false;

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
  const cluster = await startClusterNodes(['a', 'b'], 'cluster', { CLUSTER_LEASE_TTL_MS: '3000' });
  try {
    // b starts first and takes the lease on the cluster's singleton work; it is the node killed below.
    let b = await cluster.start('b');
    const a = await cluster.start('a');
    assert.equal(await leaseHolder(b), true, 'the node started first holds the lease');
    assert.equal(await leaseHolder(a), false);
    // The user registered on a logs in on b.
    const { tenantId, token } = await registerAdmin([a, b], a, b);

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
    assert.equal(await cluster.stop(b, 'SIGKILL'), null);
    const killedAt = performance.now();
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
    b = await cluster.start('b');
    await writer;
    if (failure !== null) throw failure;
    const deleted = await api(b, 'DELETE', '/api/v1/documents/doc-7', token);
    assert.equal(deleted.status, 200, JSON.stringify(deleted.body));
    await appliedEverywhere([a], await appliedSeq(b));
    await appliedEverywhere([b], await appliedSeq(a));
    const missing = await api(a, 'GET', '/api/v1/documents/doc-7', token);
    assert.equal(missing.status, 404);
    const last = await api(b, 'GET', `/api/v1/documents/doc-${total - 1}`, token);
    assert.equal(last.status, 200, JSON.stringify(last.body));

    assert.deepEqual(await cluster.stopAll(), [0, 0]);
    const [digestA, digestB] = ['a', 'b'].map((name) => digest(cluster.dir(name), tenantId));
    assert.equal(digestA!.documents, total);
    assert.deepEqual(digestB, digestA);
  } finally {
    await cluster.close();
  }
});
