import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startSwift, type SwiftS3 } from '../test-support/swift.js';
import type { TestServer } from '../test-support/server.js';
import { documentWithFile, startTestCluster, type TestCluster } from '../test-support/test-cluster.js';
import { until } from '../test-support/until.js';

interface ClusterReadyz {
  cluster: { restored_snapshot?: { id: string; seq: number } };
}

const bucket = 'godb-cluster';

/**
 * Issue #17 with `STORAGE_PROVIDER=s3`: three GoDB nodes on a three-node NATS JetStream cluster keep what is not in
 * the log in one S3 bucket (a real OpenStack Swift, its S3 API): uploaded files, the snapshots users take, and the
 * lease holder's cluster snapshots, from which a wiped node catches up. The other cluster tests cover the same with
 * the JetStream object store.
 */
describe('cluster mode on an S3 bucket (issue #17)', () => {
  let swift: SwiftS3;
  let cluster: TestCluster;
  // A bound for a broken cluster (the test fails instead of hanging), not an assertion on speed.
  const bound = { timeout: 180_000 };
  let admin = { token: '', tenantId: '' };

  before(async () => {
    swift = await startSwift();
    await swift.createBucket(bucket);
    cluster = await startTestCluster({
      prefix: 's3',
      env: swift.godbEnv(bucket, {
        CLUSTER_SNAPSHOT_EVERY_OPS: '10',
        CLUSTER_SNAPSHOT_EVERY_MIN: '0',
        CLUSTER_LEASE_TTL_MS: '10000',
        CLUSTER_NODE_GONE_S: '2',
      }),
    });
    const [a] = cluster.nodes as [TestServer];
    admin = await a.registerTenant();
  });

  after(async () => {
    await cluster?.close();
    await swift?.stop();
  });

  test(
    'a file uploaded through one node is one object in the bucket, downloaded alike from every node',
    bound,
    async () => {
      const [a] = cluster.nodes as [TestServer];
      const bytes = Buffer.from('%PDF-1.4 a report uploaded to node a, kept in S3\n');
      const before = await swift.keys(bucket, 'files/');
      const added = await a.call('POST', '/api/v1/documents', admin.token, documentWithFile('report', bytes));
      assert.equal(added.status, 201, added.text);
      await cluster.settle();
      const stored = (await swift.keys(bucket, 'files/')).filter((key) => !before.includes(key));
      assert.equal(stored.length, 1, `one new object under files/: ${stored.join(', ')}`);
      for (const node of cluster.nodes) {
        const download = await node.call('GET', '/api/v1/documents/report/file', admin.token);
        assert.equal(download.status, 200, `${cluster.nameOf(node)}: ${download.text}`);
        assert.deepEqual(download.raw, bytes);
      }
    },
  );

  test(
    'a tenant snapshot taken through one node is in the bucket, listed and downloaded on the others',
    bound,
    async () => {
      const [a, b, c] = cluster.nodes as [TestServer, TestServer, TestServer];
      const started = await b.call('POST', '/api/v1/snapshots', admin.token);
      assert.equal(started.status, 202, started.text);
      const jobId = started.body.job_id as string;
      // Polled through another node, as behind a load balancer.
      const job = await c.finishedJob(admin.token, jobId);
      assert.equal(job.status, 'done', JSON.stringify(job));
      await cluster.settle();
      const listed = await a.call('GET', '/api/v1/snapshots', admin.token);
      assert.equal(listed.status, 200, listed.text);
      const snapshots = listed.body.snapshots as { id: string; size_bytes?: number }[];
      assert.equal(snapshots.length, 1, listed.text);
      const id = snapshots[0]!.id;
      assert.ok(
        (await swift.keys(bucket, 'snapshots/')).some((key) => key.includes(id)),
        `the snapshot ${id} is an object under snapshots/`,
      );
      const downloads = await Promise.all(
        [a, c].map((node) => node.call('GET', `/api/v1/snapshots/${id}`, admin.token)),
      );
      for (const download of downloads) assert.equal(download.status, 200, download.text);
      assert.ok(downloads[0]!.raw.length > 0);
      assert.deepEqual(downloads[0]!.raw, downloads[1]!.raw);
    },
  );

  test('the lease holder snapshots the cluster into the bucket, and a wiped node restores from it', bound, async () => {
    const holder = () => cluster.nodes.find((n) => n.clusterDuties!.lease.token !== null);
    const write = async (prefix: string, count: number) => {
      for (let i = 0; i < count; i += 1) {
        const node = cluster.nodes[i % cluster.nodes.length]!;
        const res = await node.call('POST', '/api/v1/documents', admin.token, {
          id: `${prefix}-${i}`,
          title: `Document ${prefix}-${i}`,
          content: `Text of ${prefix}-${i}, written through one node.`,
        });
        assert.equal(res.status, 201, res.text);
      }
    };
    await write('first', 12);
    await cluster.settle();
    let latest: { id: string; seq: number } | undefined;
    await until(async () => {
      latest = (await holder()?.clusterDuties!.snapshots!.verified())?.[0];
      return latest !== undefined;
    }, 'the lease holder verified a cluster snapshot');
    assert.ok(
      (await swift.keys(bucket, 'cluster-snapshots/')).includes(`cluster-snapshots/${latest!.id}.tar`),
      `the cluster snapshot ${latest!.id} is an object under cluster-snapshots/`,
    );

    const name = cluster.nameOf(cluster.nodes.find((n) => n !== holder())!);
    await cluster.stop(name);
    cluster.wipe(name);
    await write('away', 3);
    const newest = (await holder()!.clusterDuties!.snapshots!.verified())[0]!;
    const node = await cluster.start(name);
    const status = (await node.call('GET', '/readyz')).body as unknown as ClusterReadyz;
    assert.deepEqual(status.cluster.restored_snapshot, { id: newest.id, seq: newest.seq });
    await cluster.settle();
    // Before the snapshot and after it, and the file: the restored node serves all three from the bucket.
    for (const id of ['first-0', 'away-2']) {
      const res = await node.call('GET', `/api/v1/documents/${id}`, admin.token);
      assert.equal(res.status, 200, res.text);
    }
    const download = await node.call('GET', '/api/v1/documents/report/file', admin.token);
    assert.equal(download.status, 200, download.text);
  });
});
