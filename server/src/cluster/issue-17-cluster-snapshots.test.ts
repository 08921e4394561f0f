import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { tenantDigest } from '../test-support/digest.js';
import { bearer, type TestServer } from '../test-support/server.js';
import type { KeptArchive } from './kept-archives.js';
import { startTestCluster, type TestCluster } from '../test-support/test-cluster.js';
import { until } from '../test-support/until.js';

interface ClusterReadyz {
  cluster: {
    node_id: string;
    applied_seq: number;
    lease_holder: boolean;
    latest_snapshot?: { id: string; seq: number; shards: number[] };
    truncated_before_seq?: Record<string, number>;
    restored_snapshot?: { id: string; seq: number };
  };
}

/**
 * Issue #17, catch-up and truncation: three GoDB nodes on a three-node NATS JetStream cluster (real processes on
 * loopback). The lease holder takes a cluster snapshot once a small number of operations passed
 * (CLUSTER_SNAPSHOT_EVERY_OPS), verifies it, and truncates the log below it; a wiped node, and one the log was
 * truncated past while it was away, restore that snapshot, replay the rest and end with the same documents.
 */
describe('cluster snapshots, log truncation and catch-up from a snapshot (issue #17)', () => {
  let cluster: TestCluster;
  const running = () => cluster.nodes;
  const readyz = async (node: TestServer) =>
    ((await node.app.inject({ method: 'GET', url: '/readyz' })).json() as ClusterReadyz).cluster;
  const holder = () => running().find((n) => n.clusterDuties!.lease.token !== null);
  /** A node's data folder (DATA_DIR; the test server's own `dataDir` is another, unused one). */
  const dirOf = (node: TestServer) => cluster.dir(cluster.nameOf(node));
  /** A running node that does not hold the lease. */
  const follower = (leader = holder()) => cluster.nameOf(running().find((n) => n !== leader)!);

  /** Waits until every running node applied everything the log holds now. */
  const settle = async () => {
    await cluster.settle();
    // And reported it (nodes report every few seconds; truncation reads the reports).
    await Promise.all(running().map((n) => n.clusterDuties!.progress.report()));
  };

  /** Writes `count` documents round-robin on the running nodes; answers the ids acknowledged (201). */
  const write = async (token: string, prefix: string, count: number) => {
    const acknowledged: string[] = [];
    for (let i = 0; i < count; i += 1) {
      const node = running()[i % running().length]!;
      const id = `${prefix}-${i}`;
      const res = await node.app.inject({
        method: 'POST',
        url: '/api/v1/documents',
        headers: bearer(token),
        payload: { id, title: `Document ${id}`, content: `Text of ${id}, written on one node, read on all.` },
      });
      assert.equal(res.statusCode, 201, res.body);
      acknowledged.push(id);
    }
    return acknowledged;
  };

  before(async () => {
    cluster = await startTestCluster({
      prefix: 'snap',
      env: {
        CLUSTER_SNAPSHOT_EVERY_OPS: '15',
        CLUSTER_SNAPSHOT_EVERY_MIN: '0',
        CLUSTER_LEASE_TTL_MS: '10000',
        CLUSTER_NODE_GONE_S: '2',
        // TEST_LOG_LEVEL=info shows what the nodes log (snapshots, truncation, restores) when a run needs explaining.
        ...(process.env.TEST_LOG_LEVEL && { LOG_LEVEL: process.env.TEST_LOG_LEVEL }),
      },
    });
  });

  after(() => cluster?.close());

  let token = '';
  let tenantId = '';
  let shard = -1;
  const acknowledged: string[] = [];

  test('the lease holder takes a verified snapshot and truncates the log below it; two snapshots are kept', async () => {
    assert.ok(holder(), 'one node holds the lease');
    // The holder now (on a loaded machine a holder may miss its renewals and the lease move).
    const leader = () => holder()!;
    ({ token, tenantId } = await cluster.node('a').registerTenant());
    acknowledged.push(...(await write(token, 'first', 20)));
    await settle();
    await leader().clusterDuties!.check();
    const after = await readyz(leader());
    assert.ok(after.latest_snapshot, JSON.stringify(after));
    // Taken by the holder's own checks or by this one, once 15 operations were applied (CLUSTER_SNAPSHOT_EVERY_OPS).
    assert.ok(after.latest_snapshot.seq >= 15, 'the snapshot includes the writes');
    // The tenant's documents are on its shard (the KV shard map); that shard is truncated below the snapshot's place in it.
    shard = (await leader().cluster!.shardOfTenant(tenantId, false))!;
    const bounds = (await leader().cluster!.shardBounds())[shard]!;
    console.log(`shard ${shard} truncated: first sequence ${bounds.first}, last ${bounds.last}`);
    assert.equal(
      bounds.first,
      after.latest_snapshot.shards[shard]! + 1,
      "the shard's first sequence moved past the snapshot",
    );
    assert.equal(after.truncated_before_seq?.[shard], bounds.first);
    const metrics = (await leader().app.inject({ method: 'GET', url: '/metrics' })).body;
    assert.match(metrics, /^godb_cluster_lease_holder 1$/m);
    assert.match(
      metrics,
      new RegExp(`^godb_cluster_snapshot_sequence\\{shard="${shard}"\\} ${after.latest_snapshot.shards[shard]}$`, 'm'),
    );

    // More writes, another snapshot: the newest two are listed, and only their archives stay in the store.
    acknowledged.push(...(await write(token, 'second', 16)));
    await settle();
    await leader().clusterDuties!.check();
    const verified = await leader().clusterDuties!.snapshots!.verified();
    assert.equal(verified.length, 2);
    assert.ok(verified[0]!.seq > verified[1]!.seq);
    const keys = (await leader().clusterDuties!.snapshots!.store.list()).sort();
    assert.deepEqual(keys, verified.flatMap((s) => [`${s.id}.manifest.json`, `${s.id}.tar`]).sort());
    assert.equal((await leader().cluster!.shardBounds())[shard]!.first, verified[0]!.shards[shard]! + 1);
    // A third one replaces the oldest.
    acknowledged.push(...(await write(token, 'third', 16)));
    await settle();
    await leader().clusterDuties!.check();
    const newer = await leader().clusterDuties!.snapshots!.verified();
    assert.deepEqual(
      newer.slice(1).map((s) => s.id),
      [verified[0]!.id],
    );
  });

  test("a restore's kept archive copy stays while a node still has to apply the restore, and goes once the log is truncated past it", async () => {
    const leader = () => holder()!;
    const name = follower();
    const behind = cluster.node(name);
    const inject = (node: TestServer, method: 'GET' | 'POST', url: string, payload?: object) =>
      node.app.inject({ method, url, headers: bearer(token), ...(payload && { payload }) });
    const jobDone = (node: TestServer, id: string) =>
      until(async () => {
        const res = await inject(node, 'GET', `/api/v1/jobs/${id}`);
        return res.statusCode === 200 && (res.json() as { status: string }).status === 'done';
      }, `job ${id} done`);
    /** Writes `count` documents through the holder only (a node halted on the shard would answer 503). */
    const writeOnHolder = async (prefix: string, count: number) => {
      for (let i = 0; i < count; i += 1) {
        const id = `${prefix}-${i}`;
        const res = await inject(leader(), 'POST', '/api/v1/documents', { id, content: `Text of ${id}.` });
        assert.equal(res.statusCode, 201, res.body);
        acknowledged.push(id);
      }
    };
    const taken = await inject(leader(), 'POST', '/api/v1/snapshots');
    assert.equal(taken.statusCode, 202, taken.body);
    const { snapshot_id: snapshotId, job_id: takenJob } = taken.json() as { snapshot_id: string; job_id: string };
    await jobDone(leader(), takenJob);

    // One node's store refuses a document of the tenant, as a full disk would: its copy of the shard stops before
    // the restore, and its progress holds the shard's truncation there.
    behind.engine.db.exec(
      `CREATE TEMP TRIGGER refuse_stuck BEFORE INSERT ON main.documents WHEN NEW.title = 'Stuck'
       BEGIN SELECT RAISE(ABORT, 'disk I/O error (simulated)'); END`,
    );
    let kept: KeptArchive | undefined;
    try {
      const stuck = await inject(leader(), 'POST', '/api/v1/documents', { id: 'stuck', title: 'Stuck', content: 'x' });
      assert.equal(stuck.statusCode, 201, stuck.body);
      await until(() => behind.cluster!.status().halted?.shard === shard, `node ${name} halted on the tenant's shard`);
      const restored = await inject(leader(), 'POST', '/api/v1/snapshots/restore', { snapshot_id: snapshotId });
      assert.equal(restored.statusCode, 202, restored.body);
      await jobDone(leader(), (restored.json() as { job_id: string }).job_id);
      // The nodes that applied the restore recorded which operation names the copy.
      await until(async () => {
        kept = (await leader().clusterDuties!.keptArchives!.list()).find((k) => k.snapshot === snapshotId);
        return kept !== undefined;
      }, 'the kept copy recorded');
      assert.equal(kept!.shard, shard);
      assert.match(kept!.archive, /^kept\/snap-/);

      // A snapshot and a truncation while that node has not applied the restore: the copy stays.
      await writeOnHolder('while-behind', 16);
      await leader().clusterDuties!.progress.report();
      await leader().clusterDuties!.check();
      assert.ok((await leader().cluster!.shardBounds())[shard]!.first <= kept!.seq, 'the restore is still in the log');
      assert.ok(await leader().engine.snapshots!.kept(kept!.archive), 'the copy is still in the store');
      assert.ok((await leader().clusterDuties!.keptArchives!.list()).some((k) => k.archive === kept!.archive));
    } finally {
      behind.engine.db.exec('DROP TRIGGER IF EXISTS refuse_stuck');
    }
    // Its disk has room again: it applies the stuck document, then the restore, from the copy.
    await settle();
    assert.equal(behind.cluster!.status().halted, undefined);
    assert.deepEqual(
      tenantDigest(dirOf(behind), tenantId).collections,
      tenantDigest(dirOf(leader()), tenantId).collections,
    );

    // Every node applied it; the next snapshot includes it and the log is truncated past it: the copy goes.
    await writeOnHolder('after-restore', 16);
    await settle();
    await leader().clusterDuties!.check();
    assert.ok((await leader().cluster!.shardBounds())[shard]!.first > kept!.seq, 'the log was truncated past it');
    await assert.rejects(leader().engine.snapshots!.kept(kept!.archive), /NOT_FOUND|not found/i);
    assert.ok(!(await leader().clusterDuties!.keptArchives!.list()).some((k) => k.archive === kept!.archive));
  });

  test('a node whose data folder is wiped restores the latest snapshot, replays the rest, ends with the same documents', async () => {
    const name = follower();
    await cluster.stop(name);
    cluster.wipe(name);
    // Writes while it is away: after the newest snapshot, so the node replays them from the log.
    acknowledged.push(...(await write(token, 'away', 6)));
    const latest = (await holder()!.clusterDuties!.snapshots!.verified())[0]!;
    const node = await cluster.start(name);
    const status = await readyz(node);
    assert.deepEqual(status.restored_snapshot, { id: latest.id, seq: latest.seq });
    await settle();
    const reference = tenantDigest(dirOf(holder()!), tenantId);
    const restored = tenantDigest(dirOf(node), tenantId);
    assert.deepEqual(restored.collections, reference.collections);
    assert.deepEqual(restored.repeated, []);
    for (const id of acknowledged) assert.ok(restored.ids.has(id), `acknowledged ${id} is on the restored node`);
    // It serves: a document written before the snapshot and one after it are read there.
    for (const id of ['first-0', 'away-5']) {
      const res = await node.app.inject({ method: 'GET', url: `/api/v1/documents/${id}`, headers: bearer(token) });
      assert.equal(res.statusCode, 200, res.body);
      // Its vector index came with the snapshot (or was replayed after it): a search finds the document.
      const search = await node.app.inject({
        method: 'POST',
        url: '/api/v1/search/vector',
        headers: bearer(token),
        payload: { query: `Text of ${id}, written on one node, read on all.`, threshold: 0, limit: 3 },
      });
      assert.equal(search.statusCode, 200, search.body);
      const top = (search.json() as { results: { document_id?: string; id?: string }[] }).results[0];
      assert.equal(top?.document_id ?? top?.id, id, search.body);
    }
  });

  test('a damaged snapshot is refused: the node does not start on it, and starts once the archive is whole', async () => {
    const leader = holder()!;
    const name = follower(leader);
    await cluster.stop(name);
    cluster.wipe(name);
    const store = leader.clusterDuties!.snapshots!.store;
    const latest = (await leader.clusterDuties!.snapshots!.verified())[0]!;
    const chunks: Buffer[] = [];
    for await (const chunk of (await store.get(`${latest.id}.tar`))!.body) chunks.push(chunk as Buffer);
    const whole = Buffer.concat(chunks);
    const damaged = Buffer.from(whole);
    // A byte of the database file's contents (past the manifest and the tar headers) changes.
    damaged[damaged.length - 4096] = damaged[damaged.length - 4096]! ^ 0xff;
    await store.put(`${latest.id}.tar`, damaged);
    await assert.rejects(cluster.start(name), (error: Error & { code?: string }) => {
      assert.equal(error.code, 'SNAPSHOT_CORRUPT', error.message);
      return true;
    });
    assert.ok(!existsSync(join(cluster.dir(name), 'godb.sqlite')), 'nothing of a damaged snapshot is put in place');
    await store.put(`${latest.id}.tar`, whole);
    const node = await cluster.start(name);
    assert.deepEqual((await readyz(node)).restored_snapshot, { id: latest.id, seq: latest.seq });
    await settle();
    assert.deepEqual(
      tenantDigest(dirOf(node), tenantId).collections,
      tenantDigest(dirOf(leader), tenantId).collections,
    );
  });

  test('a node the log was truncated past while it was away restores the snapshot; its old store is kept aside', async () => {
    const leader = holder()!;
    const name = follower(leader);
    await cluster.stop(name);
    // Gone once its progress is older than CLUSTER_NODE_GONE_S: truncation no longer waits for it.
    await until(async () => !(await leader.clusterDuties!.progress.live()).some((p) => p.node === name), 'gone');
    acknowledged.push(...(await write(token, 'gone', 16)));
    await settle();
    await leader.clusterDuties!.check();
    const latest = (await leader.clusterDuties!.snapshots!.verified())[0]!;
    acknowledged.push(...(await write(token, 'later', 3)));
    const node = await cluster.start(name);
    assert.deepEqual((await readyz(node)).restored_snapshot, { id: latest.id, seq: latest.seq });
    const aside = readdirSync(dirOf(node)).filter((f) => f.startsWith('replaced-'));
    assert.equal(aside.length, 1);
    assert.ok(existsSync(join(dirOf(node), aside[0]!, 'godb.sqlite')), 'the old store is kept, not deleted');
    await settle();
    const reference = tenantDigest(dirOf(leader), tenantId);
    const restored = tenantDigest(dirOf(node), tenantId);
    assert.deepEqual(restored.collections, reference.collections);
    for (const id of acknowledged) assert.ok(restored.ids.has(id), `acknowledged ${id} is on the restored node`);
  });

  test('a running node the log was truncated past halts at once, also with nothing after the purge, and restores once restarted', async () => {
    const leader = holder()!;
    const name = follower(leader);
    const behind = cluster.node(name);
    const others = () => running().filter((n) => n !== behind);
    // Its store refuses a document, so its copy of the tenant's shard stops; then its reports stop reaching KV (as
    // behind a partition) while its process runs: it counts as gone, and truncation no longer waits for it.
    behind.engine.db.exec(
      `CREATE TEMP TRIGGER refuse_stuck BEFORE INSERT ON main.documents WHEN NEW.title = 'Stuck'
       BEGIN SELECT RAISE(ABORT, 'disk I/O error (simulated)'); END`,
    );
    try {
      const stuck = await leader.app.inject({
        method: 'POST',
        url: '/api/v1/documents',
        headers: bearer(token),
        payload: { id: 'stuck-2', title: 'Stuck', content: 'Stops one node.' },
      });
      assert.equal(stuck.statusCode, 201, stuck.body);
      acknowledged.push('stuck-2');
      await until(() => behind.cluster!.status().halted?.shard === shard, `node ${name} halted on the tenant's shard`);
      await behind.clusterDuties!.progress.stop();
      await until(async () => !(await leader.clusterDuties!.progress.live()).some((p) => p.node === name), 'gone');
      for (let i = 0; i < 16; i += 1) {
        const id = `past-${i}`;
        const res = await leader.app.inject({
          method: 'POST',
          url: '/api/v1/documents',
          headers: bearer(token),
          payload: { id, title: id, content: `Text of ${id}.` },
        });
        assert.equal(res.statusCode, 201, res.body);
        acknowledged.push(id);
      }
      // The nodes still counted applied everything: the snapshot holds it all and the shard is purged whole.
      const { last } = (await leader.cluster!.shardBounds())[shard]!;
      for (const node of others()) await node.cluster!.waitForShard(shard, last);
      await Promise.all(others().map((n) => n.clusterDuties!.progress.report()));
      await leader.clusterDuties!.check();
      const bounds = (await leader.cluster!.shardBounds())[shard]!;
      assert.equal(bounds.first, last + 1, 'nothing of the shard is left after the purge');
      assert.ok(bounds.first > behind.cluster!.appliedByShard()[shard]! + 1, 'truncated past the node');
      // No operation comes after the purge to show it; the node sees it in the stream's bounds and says so.
      await until(async () => {
        const res = await behind.app.inject({ method: 'GET', url: '/readyz' });
        const body = res.json() as { cluster: { halted_because?: string } };
        return res.statusCode === 503 && /truncated past this node/.test(body.cluster.halted_because ?? '');
      }, `node ${name} halted for the truncation`);
    } finally {
      behind.engine.db.exec('DROP TRIGGER IF EXISTS refuse_stuck');
    }
    // Restarted, it restores the newest snapshot and replays what follows it.
    await cluster.stop(name);
    const latest = (await leader.clusterDuties!.snapshots!.verified())[0]!;
    const node = await cluster.start(name);
    assert.deepEqual((await readyz(node)).restored_snapshot, { id: latest.id, seq: latest.seq });
    await settle();
    const restored = tenantDigest(dirOf(node), tenantId);
    assert.deepEqual(restored.collections, tenantDigest(dirOf(leader), tenantId).collections);
    for (const id of acknowledged) assert.ok(restored.ids.has(id), `acknowledged ${id} is on the restored node`);
  });

  test('the lease moves to another node when its holder stops', async () => {
    const leader = holder()!;
    const name = cluster.nameOf(leader);
    const stopped = performance.now();
    await cluster.stop(name);
    await until(() => holder() !== undefined, 'another node took the lease');
    console.log(`lease hand-over after the holder stopped: ${Math.round(performance.now() - stopped)} ms`);
    // The new holder goes on with the work: a snapshot once enough operations passed, and truncation.
    acknowledged.push(...(await write(token, 'after-handover', 16)));
    await settle();
    const next = holder()!;
    // The stopped holder still bounds truncation (it may come back and replay) until it counts as gone.
    await until(async () => !(await next.clusterDuties!.progress.live()).some((p) => p.node === name), 'gone');
    await next.clusterDuties!.check();
    const latest = (await next.clusterDuties!.snapshots!.verified())[0]!;
    assert.equal(latest.node, cluster.nameOf(next));
    assert.equal((await next.cluster!.shardBounds())[shard]!.first, latest.shards[shard]! + 1);
  });
});
