import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { Kvm } from '@nats-io/kv';
import { connect } from '@nats-io/transport-node';
import { proposedShard } from '../engine/operations/operation-shard.js';
import { tenantDigest } from '../test-support/digest.js';
import { openTestEngine } from '../test-support/engine.js';
import { bearer, startTestServer, type TestServer } from '../test-support/server.js';
import { withTempDirs } from '../test-support/temp-dirs.js';
import { clusterJwtSecret, startTestCluster, type TestCluster } from '../test-support/test-cluster.js';
import { until } from '../test-support/until.js';

/** An X-GoDB-Seq token (`0:17,5:42`) as shard → sequence. */
const shardSeqs = (token: unknown): Record<number, number> =>
  Object.fromEntries(
    String(token)
      .split(',')
      .map((pair) => pair.split(':').map(Number) as [number, number]),
  );

/** Tenant ids whose proposed shards (16 shards) are all different and none the directory's (0). */
function tenantsOnDistinctShards(count: number): { id: string; shard: number }[] {
  const found: { id: string; shard: number }[] = [];
  for (let i = 0; found.length < count; i += 1) {
    const id = randomUUID();
    const shard = proposedShard(id, 16);
    if (shard !== 0 && !found.some((t) => t.shard === shard)) found.push({ id, shard });
  }
  return found;
}

/**
 * Issue #17, shards: the log is 16 shard streams; the KV bucket godb-shards fixes each tenant's shard on its first
 * write; the directory (users, groups, keys) is shard 0. Real nats-server processes and three GoDB nodes.
 */
describe('cluster mode: shard streams and the KV shard map (issue #17)', () => {
  let cluster: TestCluster;

  const register = async (node: TestServer, tenantId: string) => {
    const email = `admin-${randomUUID()}@example.com`;
    const res = await node.app.inject({
      method: 'POST',
      url: '/auth/register',
      payload: { email, password: 'password-1234', tenant_id: tenantId },
    });
    assert.equal(res.statusCode, 201, res.body);
    return { token: await node.login(email, 'password-1234'), seq: String(res.headers['x-godb-seq']) };
  };

  const write = (node: TestServer, token: string, payload: object) =>
    node.app.inject({ method: 'POST', url: '/api/v1/documents', headers: bearer(token), payload });

  const read = (node: TestServer, token: string, id: string, headers: Record<string, string> = {}) =>
    node.app.inject({ method: 'GET', url: `/api/v1/documents/${id}`, headers: { ...bearer(token), ...headers } });

  before(async () => {
    cluster = await startTestCluster({ prefix: 'shards', env: { NATS_PUBLISH_TIMEOUT_MS: '3000' } });
  });

  after(() => cluster?.close());

  test('two tenants on different shards, written on different nodes, are read on every node', async () => {
    const [a, b] = cluster.nodes as [TestServer, TestServer, TestServer];
    const [one, two] = tenantsOnDistinctShards(2) as [{ id: string; shard: number }, { id: string; shard: number }];
    const first = await register(a, one.id);
    // Registering is a directory operation: shard 0, and only shard 0 until the tenant writes data.
    assert.deepEqual(Object.keys(shardSeqs(first.seq)), ['0']);
    await cluster.nodes[1]!.cluster!.waitForShard(0, shardSeqs(first.seq)[0]!);
    const second = await register(b, two.id);
    const before = await a.cluster!.shardBounds();
    for (let i = 0; i < 3; i += 1) {
      const onA = await write(a, first.token, { id: `one-${i}`, title: `One ${i}`, content: 'Tenant one.' });
      assert.equal(onA.statusCode, 201, onA.body);
      // The answer names the directory's shard and the tenant's, fixed in the shard map on its first write.
      assert.deepEqual(Object.keys(shardSeqs(onA.headers['x-godb-seq'])).map(Number), [0, one.shard]);
      const onB = await write(b, second.token, { id: `two-${i}`, title: `Two ${i}`, content: 'Tenant two.' });
      assert.equal(onB.statusCode, 201, onB.body);
      assert.deepEqual(Object.keys(shardSeqs(onB.headers['x-godb-seq'])).map(Number), [0, two.shard]);
    }
    // Each tenant's writes went to its own shard stream, nowhere else.
    const after = await a.cluster!.shardBounds();
    assert.equal(after[one.shard]!.last - before[one.shard]!.last, 3);
    assert.equal(after[two.shard]!.last - before[two.shard]!.last, 3);
    // The KV shard map holds the entries every node reads (the hash was the proposal, and the first create won).
    const nc = await connect({ servers: cluster.nats.url.split(',') });
    try {
      const kv = await new Kvm(nc).open('godb-shards');
      for (const tenant of [one, two]) {
        const entry = await kv.get(`tenant.${Buffer.from(tenant.id).toString('base64url')}`);
        assert.equal(entry?.string(), String(tenant.shard));
      }
      assert.equal((await kv.get('shard-count'))?.string(), '16');
    } finally {
      await nc.close();
    }
    await cluster.settle();
    for (const node of cluster.nodes) {
      for (let i = 0; i < 3; i += 1) {
        assert.equal((await read(node, first.token, `one-${i}`)).statusCode, 200);
        assert.equal((await read(node, second.token, `two-${i}`)).statusCode, 200);
      }
      // Every node learnt both tenants' shards from what it applied.
      assert.deepEqual(Object.keys(shardSeqs(node.services.clusterPosition(one.id))).map(Number), [0, one.shard]);
    }
    for (const tenant of [one, two]) {
      const digests = cluster.names.map((name) => tenantDigest(cluster.dir(name), tenant.id));
      assert.deepEqual(digests[1], digests[0]);
      assert.deepEqual(digests[2], digests[0]);
    }
  });

  test("strong consistency for one tenant does not wait for another shard's backlog", async () => {
    const [a, , c] = cluster.nodes as [TestServer, TestServer, TestServer];
    const [one, two] = tenantsOnDistinctShards(2) as [{ id: string; shard: number }, { id: string; shard: number }];
    const first = await register(a, one.id);
    const second = await register(a, two.id);
    await cluster.settle();
    // Node c's store refuses one document of tenant two, as a full disk would: c's copy of that shard stops there.
    c.engine.db.exec(
      `CREATE TEMP TRIGGER refuse_stuck BEFORE INSERT ON main.documents WHEN NEW.title = 'Stuck'
       BEGIN SELECT RAISE(ABORT, 'disk I/O error (simulated)'); END`,
    );
    try {
      const stuck = await write(a, second.token, { id: 'stuck', title: 'Stuck', content: 'Stops node c.' });
      assert.equal(stuck.statusCode, 201, stuck.body);
      const behind = await write(a, second.token, { id: 'behind', title: 'Behind', content: 'After it.' });
      assert.equal(behind.statusCode, 201, behind.body);
      await until(() => c.cluster!.status().halted?.shard === two.shard, "node c halted on tenant two's shard");
      // Tenant one writes on node a, and reads on node c at once with strong consistency: it waits for its own
      // shard (and the directory's) only, so it is answered, with the write.
      const fresh = await write(a, first.token, { id: 'fresh', title: 'Fresh', content: 'Tenant one, new.' });
      assert.equal(fresh.statusCode, 201, fresh.body);
      const strongOne = await read(c, first.token, 'fresh', { 'x-godb-consistency': 'strong' });
      assert.equal(strongOne.statusCode, 200, strongOne.body);
      // Tenant two's strong read on node c waits for its shard, which is stuck there: 503 CLUSTER_LAGGING.
      const strongTwo = await read(c, second.token, 'behind', { 'x-godb-consistency': 'strong' });
      assert.equal(strongTwo.statusCode, 503, strongTwo.body);
      assert.equal((strongTwo.json() as { error: { code: string } }).error.code, 'CLUSTER_LAGGING');
      // So is a read asking for the token a write of tenant two answered.
      const tokenTwo = await read(c, second.token, 'behind', {
        'x-godb-min-seq': String(behind.headers['x-godb-seq']),
      });
      assert.equal(tokenTwo.statusCode, 503, tokenTwo.body);
    } finally {
      c.engine.db.exec('DROP TRIGGER IF EXISTS refuse_stuck');
    }
    // The disk has room again: node c applies the rest of tenant two's shard.
    await cluster.settle();
    assert.equal((await read(c, second.token, 'behind', { 'x-godb-consistency': 'strong' })).statusCode, 200);
  });

  test('a tenant operation decided on a directory change is applied only after that change (the ordering rule)', async () => {
    const [a, , c] = cluster.nodes as [TestServer, TestServer, TestServer];
    const [one] = tenantsOnDistinctShards(1) as [{ id: string; shard: number }];
    const admin = await register(a, one.id);
    await cluster.settle();
    // Node c's store refuses the next user, as a full disk would: its directory shard (0) stops there.
    c.engine.db.exec(
      `CREATE TEMP TRIGGER refuse_user BEFORE INSERT ON main.users WHEN NEW.email LIKE 'late-%'
       BEGIN SELECT RAISE(ABORT, 'disk I/O error (simulated)'); END`,
    );
    try {
      const email = `late-${randomUUID()}@example.com`;
      const made = await a.app.inject({
        method: 'POST',
        url: '/auth/users',
        headers: bearer(admin.token),
        payload: { email, password: 'password-1234' },
      });
      assert.equal(made.statusCode, 201, made.body);
      const userSeq = shardSeqs(made.headers['x-godb-seq'])[0]!;
      const token = await a.login(email, 'password-1234');
      const doc = await write(a, token, { id: 'by-late-user', title: 'Late', content: 'Written by the new user.' });
      assert.equal(doc.statusCode, 201, doc.body);
      // Node c received the document on the tenant's shard, but holds it until its directory has the user.
      await until(
        () => (c.cluster!.status().shards[one.shard]?.waitingFor ?? 0) >= userSeq,
        "node c's tenant shard waits for the directory",
      );
      const readyz = (await c.app.inject({ method: 'GET', url: '/readyz' })).json() as {
        cluster: { shards: { shard: number; waiting_for_directory_seq?: number }[] };
      };
      assert.ok(readyz.cluster.shards[one.shard]!.waiting_for_directory_seq! >= userSeq, JSON.stringify(readyz));
      const row = c.engine.db
        .prepare('SELECT 1 FROM documents WHERE tenant_id = ? AND id = ?')
        .get(one.id, 'by-late-user');
      assert.equal(row, undefined, 'not applied before the user exists on node c');
    } finally {
      c.engine.db.exec('DROP TRIGGER IF EXISTS refuse_user');
    }
    await cluster.settle();
    const digests = cluster.names.map((name) => tenantDigest(cluster.dir(name), one.id));
    assert.deepEqual(digests[2], digests[0]);
  });

  test('a node configured with another shard count, or holding a single-stream data folder, refuses to start', async () => {
    await assert.rejects(
      startTestServer({
        NATS_URL: cluster.nats.url,
        NODE_ID: 'eight',
        JWT_SECRET: clusterJwtSecret,
        CLUSTER_SHARDS: '8',
      }),
      /CLUSTER_SHARDS is 8, but this cluster's log has 16 shard streams/,
    );
    // A data folder of the single-stream version: its applied sequence of GODB_OPS is kept aside by the migration.
    await withTempDirs(['godb-cluster-legacy-'], async ([dir]) => {
      const engine = openTestEngine(dir);
      engine.db.prepare("INSERT INTO cluster_applied_single_stream (stream, seq) VALUES ('GODB_OPS', 42)").run();
      await engine.close();
      await assert.rejects(
        startTestServer({ NATS_URL: cluster.nats.url, NODE_ID: 'legacy', JWT_SECRET: clusterJwtSecret, DATA_DIR: dir }),
        /applied the single replicated stream of an earlier GoDB \(GODB_OPS, up to 42\)/,
      );
    });
  });
});
