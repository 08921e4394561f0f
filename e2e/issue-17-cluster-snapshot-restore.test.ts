// Issue #17 (cluster mode), catch-up from a snapshot with real processes: two GoDB server processes on a three-node
// NATS JetStream cluster, a cluster snapshot every 10 operations. The lease holder snapshots and truncates the log;
// the other node is killed, its data folder wiped, and restarted: it restores the snapshot before it opens (PORT
// answers meanwhile), replays the rest and ends with the same documents. The deadlines only detect a hang.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  appliedEverywhere,
  appliedSeq,
  clusterStatus as readyz,
  registerAdmin,
  startClusterNodes,
  tenantDigest,
} from './support/cluster-nodes.js';
import { api, type ServerProcess } from './support/server-process.js';

test('a GoDB process whose data folder is wiped restores the cluster snapshot, replays the rest and converges', async () => {
  const cluster = await startClusterNodes(['a', 'b'], 'snap', {
    CLUSTER_SNAPSHOT_EVERY_OPS: '10',
    CLUSTER_SNAPSHOT_EVERY_MIN: '0',
  });
  try {
    const a = await cluster.start('a');
    let b = await cluster.start('b');
    assert.equal((await readyz(a))?.lease_holder, true, 'the node started first holds the lease');
    const { tenantId, token } = await registerAdmin([a, b], a, a);
    const ids: string[] = [];
    const write = async (server: ServerProcess, id: string) => {
      const res = await api(server, 'POST', '/api/v1/documents', token, { id, title: id, content: `Document ${id}.` });
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

    assert.equal(await cluster.stop(b, 'SIGKILL'), null);
    cluster.wipe('b');
    for (let i = 0; i < 4; i += 1) await write(a, `while-wiped-${i}`);
    const restarted = performance.now();
    b = await cluster.start('b');
    console.log(`wiped node restored the snapshot and caught up in ${Math.round(performance.now() - restarted)} ms`);
    // The newest verified snapshot when it started: the one seen above, or one the holder took since.
    const restored = (await readyz(b))?.restored_snapshot;
    assert.ok(restored && restored.seq >= status.latest_snapshot!.seq, JSON.stringify(restored));
    await write(b, 'after-restore');
    await appliedEverywhere([a, b], await appliedSeq(b));

    assert.deepEqual(await cluster.stopAll(), [0, 0]);
    const [digestA, digestB] = ['a', 'b'].map((name) => tenantDigest(cluster.dir(name), tenantId));
    assert.deepEqual(digestB!.collections, digestA!.collections);
    assert.deepEqual(digestB!.repeated, []);
    for (const id of ids) assert.ok(digestB!.ids.has(id), `acknowledged ${id} is on the restored node`);
  } finally {
    await cluster.close();
  }
});
