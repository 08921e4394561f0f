import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ClusterView } from '@godb/contract';
import { bearer, type TestServer } from '../test-support/server.js';
import { startTestCluster, type TestCluster } from '../test-support/test-cluster.js';
import { until } from '../test-support/until.js';

/**
 * Issue #41, the cluster view before the partitioning: GET /api/v1/cluster on each node of a real three-node cluster
 * (three nats-server processes) lists the same nodes and shard streams, and every node's applied sequences catch up
 * with the streams after a few writes.
 */
describe('GET /api/v1/cluster in a three-node cluster (issue #41)', () => {
  let cluster: TestCluster;
  before(async () => {
    cluster = await startTestCluster({ prefix: 'view', env: { NATS_PUBLISH_TIMEOUT_MS: '3000' } });
  });
  after(() => cluster?.close());

  const view = async (node: TestServer, token: string): Promise<ClusterView> => {
    const res = await node.app.inject({ method: 'GET', url: '/api/v1/cluster', headers: bearer(token) });
    assert.equal(res.statusCode, 200, res.body);
    return res.json<ClusterView>();
  };

  test('every node agrees on the nodes and the shards, and shows the writes applied everywhere', async () => {
    const [a, b, c] = cluster.nodes as [TestServer, TestServer, TestServer];
    const tenant = await a.registerTenant();
    for (let i = 0; i < 3; i += 1) {
      const res = await b.app.inject({
        method: 'POST',
        url: '/api/v1/documents',
        headers: bearer(tenant.token),
        payload: { id: `doc-${i}`, title: `Doc ${i}`, content: 'Seen by every node.' },
      });
      assert.equal(res.statusCode, 201, res.body);
    }
    await cluster.settle();
    // Each node reports its progress every few seconds: wait until every report, on every node's view, has reached
    // the streams' last sequences (a hang detector, not a timing).
    let views: ClusterView[] = [];
    await until(
      async () => {
        views = await Promise.all([a, b, c].map((node) => view(node, tenant.token)));
        return views.every((v) =>
          v.shards.every((s) => s.lag === 0 && s.holders.every((h) => h.applied_seq === s.last_seq)),
        );
      },
      () => `every node's view shows every shard applied: ${JSON.stringify(views.map((v) => v.shards))}`,
    );
    assert.deepEqual(
      views.map((v) => v.node),
      ['a', 'b', 'c'],
    );
    for (const v of views) {
      assert.equal(v.mode, 'cluster');
      assert.deepEqual(
        v.nodes.map((n) => [n.id, n.alive]),
        [
          ['a', true],
          ['b', true],
          ['c', true],
        ],
      );
      assert.ok(v.nodes.every((n) => n.address.startsWith('http://')));
      assert.equal(v.shards.length, 16);
      assert.deepEqual(v.moves, []);
      for (const s of v.shards) {
        assert.equal(s.stream, `godb-shard-${String(s.shard).padStart(2, '0')}`);
        assert.equal(s.applied_seq, s.last_seq);
        assert.ok(s.leader !== '' && s.replicas[0] === s.leader && s.replicas.length === 3, JSON.stringify(s));
        assert.deepEqual(
          s.holders.map((h) => h.node),
          ['a', 'b', 'c'],
        );
      }
    }
    // The same streams and sequences through every node; the writes are on the directory's and the tenant's shards.
    const sequences = (v: ClusterView) => v.shards.map((s) => [s.stream, s.first_seq, s.last_seq]);
    assert.deepEqual(sequences(views[1]!), sequences(views[0]!));
    assert.deepEqual(sequences(views[2]!), sequences(views[0]!));
    const home = await a.cluster!.shardOfTenant(tenant.tenantId, false);
    assert.ok(views[0]!.shards[0]!.last_seq >= 1, 'the registration is on the directory shard');
    assert.ok(views[0]!.shards[home!]!.last_seq >= 3, `the three documents are on the tenant's shard ${home}`);
  });
});
