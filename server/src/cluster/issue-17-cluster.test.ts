import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomUUID } from 'node:crypto';
import { bearer, type TestServer } from '../test-support/server.js';
import { startTestCluster, type TestCluster } from '../test-support/test-cluster.js';

/**
 * Issue #17, the first slice of cluster mode: three GoDB nodes on a three-node NATS JetStream cluster, all of them
 * real processes or servers on loopback. Writes taken by any node are applied by every node; a stopped node catches
 * up when it comes back; a republished operation is applied once.
 */
/** An X-GoDB-Seq token (`0:17,5:42`) as shard → sequence. */
const shardSeqs = (token: string): Record<number, number> =>
  Object.fromEntries(token.split(',').map((pair) => pair.split(':').map(Number) as [number, number]));

describe('cluster mode on NATS JetStream (issue #17)', () => {
  let cluster: TestCluster;

  /** What a tenant holds on one node: every document version with its chunks' vectors, hashed. */
  const digest = (node: TestServer, tenantId: string) => {
    const rows = node.engine.db
      .prepare(
        `SELECT d.id, d.version, d.superseded, d.deleted_at, d.created_at, d.updated_at, d.title, d.primary_table,
                (SELECT group_concat(hex(c.vector), ',') FROM chunks c WHERE c.doc_seq = d.seq ORDER BY c.chunk_index) AS vectors
         FROM documents d WHERE d.tenant_id = ? ORDER BY d.id`,
      )
      .all(tenantId);
    const collections = node.engine.collections.list(tenantId).map((c) => c.name);
    return {
      documents: rows.length,
      hash: createHash('sha256')
        .update(JSON.stringify([rows, collections]))
        .digest('hex'),
    };
  };

  /** A request as `token`'s user, with `headers` besides the bearer token (the consistency headers). */
  const inject = (
    node: TestServer,
    token: string,
    method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
    url: string,
    payload?: object,
    headers: Record<string, string> = {},
  ) => node.app.inject({ method, url, headers: { ...bearer(token), ...headers }, ...(payload && { payload }) });

  /** Adds a document through `node`, checked acknowledged (201): its answer, with the X-GoDB-Seq header. */
  const addDocument = async (node: TestServer, token: string, document: object) => {
    const res = await inject(node, token, 'POST', '/api/v1/documents', document);
    assert.equal(res.statusCode, 201, res.body);
    return res;
  };

  before(async () => {
    cluster = await startTestCluster();
  });

  after(() => cluster?.close());

  test('a tenant registered on one node logs in on every node, and its token works everywhere', async () => {
    const [a, b, c] = cluster.nodes as [TestServer, TestServer, TestServer];
    const { token, email, password, tenantId } = await a.registerTenant();
    await cluster.settle();
    for (const node of [b, c]) {
      const login = await node.app.inject({ method: 'POST', url: '/auth/login', payload: { email, password } });
      assert.equal(login.statusCode, 200, login.body);
      const users = await inject(node, token, 'GET', '/auth/users');
      assert.equal(users.statusCode, 200, users.body);
      assert.deepEqual(
        (users.json() as { users: { email: string; tenant_id: string }[] }).users.map((u) => [u.email, u.tenant_id]),
        [[email, tenantId]],
      );
    }
    // Registering the same tenant again on another node is refused there, as on one node.
    const again = await b.app.inject({
      method: 'POST',
      url: '/auth/register',
      payload: { email: `other-${randomUUID()}@example.com`, password: 'password-1234', tenant_id: tenantId },
    });
    assert.equal(again.statusCode, 409, again.body);
    // Each node says where it is in the log.
    await cluster.settle();
    const applied = a.cluster!.applied;
    const byShard = a.cluster!.appliedByShard();
    assert.equal(byShard.length, 16, 'sixteen shard streams by default');
    const holders: boolean[] = [];
    for (const [i, node] of cluster.nodes.entries()) {
      const readyz = (await node.app.inject({ method: 'GET', url: '/readyz' })).json() as {
        cluster: { lease_holder: boolean; shards: { shard: number; applied_seq: number; lag: number }[] };
      };
      const { lease_holder: holder, shards, ...place } = readyz.cluster;
      holders.push(holder);
      assert.deepEqual(place, { node_id: ['a', 'b', 'c'][i], applied_seq: applied, lag: 0, reads_may_be_stale: false });
      assert.deepEqual(
        shards,
        byShard.map((seq, shard) => ({ shard, applied_seq: seq, lag: 0 })),
      );
      const metrics = (await node.app.inject({ method: 'GET', url: '/metrics' })).body;
      for (const [shard, seq] of byShard.entries()) {
        assert.match(metrics, new RegExp(`^godb_cluster_applied_sequence\\{shard="${shard}"\\} ${seq}$`, 'm'));
        assert.match(metrics, new RegExp(`^godb_cluster_lag_operations\\{shard="${shard}"\\} 0$`, 'm'));
      }
    }
    // One node holds the lease on the cluster's singleton work (snapshots, truncation).
    assert.equal(holders.filter(Boolean).length, 1, JSON.stringify(holders));
  });

  test('documents written on any node are read on every node, and the nodes hold the same data', async () => {
    const [a, b, c] = cluster.nodes as [TestServer, TestServer, TestServer];
    const { token, tenantId } = await a.registerTenant();
    await addDocument(a, token, {
      id: 'first',
      title: 'Replicated',
      content: 'Written on node a, read on every node.',
      tags: ['cluster'],
    });
    // Read-your-writes on the node that took the write, with no wait.
    assert.equal((await inject(a, token, 'GET', '/api/v1/documents/first')).statusCode, 200);

    const batch = await inject(b, token, 'POST', '/api/v1/documents/batch', [
      { id: 'second', title: 'Batch one', content: 'Taken by node b.' },
      { id: 'third', title: 'Batch two', content: 'Also taken by node b.' },
    ]);
    assert.equal(batch.statusCode, 200, batch.body);
    const imported = await c.app.inject({
      method: 'POST',
      url: '/api/v1/documents/import',
      headers: { ...bearer(token), 'content-type': 'application/x-ndjson' },
      payload: ['fourth', 'fifth']
        .map((id) => JSON.stringify({ id, title: id, content: `Imported ${id}.` }))
        .join('\n'),
    });
    assert.equal(imported.statusCode, 200, imported.body);
    assert.equal(imported.body.trim().split('\n').length, 2, imported.body);
    const collection = await inject(b, token, 'POST', '/api/v1/collections', {
      name: 'own_vectors',
      vectors: { default: { dimensions: 3, distance: 'cosine' } },
    });
    assert.equal(collection.statusCode, 201, collection.body);
    const deleted = await inject(c, token, 'DELETE', '/api/v1/documents/second');
    assert.equal(deleted.statusCode, 200, deleted.body);
    // Updating a document that exists makes its second version everywhere.
    const readded = await addDocument(a, token, {
      id: 'first',
      title: 'Replicated, version 2',
      content: 'Written again on node a.',
    });
    assert.equal((readded.json() as { version: number }).version, 2);

    await cluster.settle();
    for (const node of cluster.nodes) {
      const first = await inject(node, token, 'GET', '/api/v1/documents/first');
      assert.equal(first.statusCode, 200, first.body);
      assert.equal((first.json() as { document: { title: string } }).document.title, 'Replicated, version 2');
      assert.equal((await inject(node, token, 'GET', '/api/v1/documents/second')).statusCode, 404);
      const count = await inject(node, token, 'POST', '/api/v1/documents/count', {});
      assert.equal((count.json() as { count: number }).count, 4, count.body);
      const search = await inject(node, token, 'POST', '/api/v1/search/text', { query: 'imported' });
      assert.equal(search.statusCode, 200, search.body);
      const ids = (search.json() as { results: { document_id?: string; id?: string }[] }).results.map(
        (r) => r.document_id ?? r.id,
      );
      assert.deepEqual(ids.sort(), ['fifth', 'fourth']);
    }
    const digests = cluster.nodes.map((n) => digest(n, tenantId));
    assert.equal(digests[0]!.documents, 6); // five documents and the first one's archived version
    assert.deepEqual(digests[1], digests[0]);
    assert.deepEqual(digests[2], digests[0]);
  });

  test('a read on another node can wait for a write: X-GoDB-Seq, X-GoDB-Min-Seq and X-GoDB-Consistency: strong', async () => {
    const [a, b, c] = cluster.nodes as [TestServer, TestServer, TestServer];
    const { token } = await a.registerTenant();
    const written = await addDocument(a, token, {
      id: 'fresh',
      title: 'Fresh',
      content: 'New.',
    });
    // The token names the directory's shard (0) and the tenant's, each with a's place in it after the write.
    const token0 = String(written.headers['x-godb-seq']);
    const seqs = shardSeqs(token0);
    const shards = Object.keys(seqs).map(Number);
    assert.ok(shards[0] === 0 && shards.length <= 2, `x-godb-seq ${token0}`);
    for (const shard of shards) assert.ok(seqs[shard]! <= a.cluster!.appliedByShard()[shard]!, token0);
    // Whatever node c has applied so far, this read waits until it has the write.
    const onC = await inject(c, token, 'GET', '/api/v1/documents/fresh', undefined, { 'x-godb-min-seq': token0 });
    assert.equal(onC.statusCode, 200, onC.body);
    const onCSeqs = shardSeqs(String(onC.headers['x-godb-seq']));
    for (const shard of shards) assert.ok(onCSeqs[shard]! >= seqs[shard]!, String(onC.headers['x-godb-seq']));
    await addDocument(a, token, {
      id: 'fresher',
      title: 'Fresher',
      content: 'Newer.',
    });
    const onB = await inject(b, token, 'GET', '/api/v1/documents/fresher', undefined, {
      'x-godb-consistency': 'strong',
    });
    assert.equal(onB.statusCode, 200, onB.body);
    for (const [header, value] of [
      ['x-godb-min-seq', 'soon'],
      ['x-godb-min-seq', String(10 ** 12)],
      ['x-godb-min-seq', `0:${10 ** 12}`],
      ['x-godb-min-seq', '99:1'],
      ['x-godb-consistency', 'eventual'],
    ] as const) {
      const bad = await inject(b, token, 'GET', '/api/v1/documents/fresher', undefined, { [header]: value });
      assert.equal(bad.statusCode, 400, bad.body);
      const error = (bad.json() as { error: { code: string; field: string } }).error;
      assert.deepEqual([error.code, error.field], ['VALIDATION_FAILED', `headers.${header}`]);
    }
  });

  test('a partial update taken by any node applies everywhere, unless another write of the document came first', async () => {
    const [a, b] = cluster.nodes as [TestServer, TestServer, TestServer];
    const { token, tenantId, userId } = await a.registerTenant();
    const added = await addDocument(a, token, {
      id: 'patched',
      title: 'Old',
      content: 'Body.',
    });
    const updated = await inject(
      b,
      token,
      'PATCH',
      '/api/v1/documents/patched',
      { title: 'New', tags: ['edited'] },
      { 'x-godb-min-seq': String(added.headers['x-godb-seq']) },
    );
    assert.equal(updated.statusCode, 200, updated.body);
    // An update prepared from version 1 after version 2 is in the log: refused on every node, nothing overwritten.
    const viewer = { tenantId, userId, groups: [] };
    const [stale] = a.engine.documents.preparation.prepare(
      viewer,
      [{ id: 'patched', title: 'Stale', content: 'Body.' }],
      () => 'body',
    );
    await a.engine.documents.preparation.embed([stale!]);
    await assert.rejects(
      a.cluster!.submit({ kind: 'write-documents', viewer, documents: [stale!], paths: ['body'], expectedVersion: 1 }),
      (error: { code?: string }) => error.code === 'DOCUMENT_CHANGED',
    );
    await cluster.settle();
    for (const node of cluster.nodes) {
      const res = await inject(node, token, 'GET', '/api/v1/documents/patched');
      const document = (res.json() as { document: { title: string; version: number; tags: string[] } }).document;
      assert.deepEqual([document.title, document.version, document.tags], ['New', 2, ['edited']]);
    }
    assert.deepEqual(digest(b, tenantId), digest(a, tenantId));
  });

  test('roles, groups and user deletions made on one node hold on every node', async () => {
    const [a, b, c] = cluster.nodes as [TestServer, TestServer, TestServer];
    const admin = await a.registerTenant();
    // The super admin creates an admin, the tenant admin demotes it to a user: both on node a.
    const member = await a.addUser(admin);
    await cluster.settle();
    const group = await inject(b, admin.token, 'POST', '/auth/groups', { name: 'readers', description: 'Read' });
    assert.equal(group.statusCode, 201, group.body);
    const groupId = (group.json() as { group_id: string }).group_id;
    const added = await inject(
      c,
      admin.token,
      'POST',
      `/auth/groups/${groupId}/users`,
      { user_id: member.userId },
      { 'x-godb-min-seq': String(group.headers['x-godb-seq']) },
    );
    assert.equal(added.statusCode, 200, added.body);
    await cluster.settle();
    for (const node of cluster.nodes) {
      const user = await inject(node, admin.token, 'GET', `/auth/users/${member.userId}`);
      assert.equal(user.statusCode, 200, user.body);
      const { role, groups } = (user.json() as { user: { role: string; groups: string[] } }).user;
      assert.deepEqual([role, groups], ['user', [groupId]]);
    }
    const removed = await inject(a, admin.token, 'DELETE', `/auth/users/${member.userId}`);
    assert.equal(removed.statusCode, 200, removed.body);
    await cluster.settle();
    for (const node of cluster.nodes) {
      const login = await node.app.inject({
        method: 'POST',
        url: '/auth/login',
        payload: { email: member.email, password: 'password-1234' },
      });
      assert.equal(login.statusCode, 401, login.body);
      // Its token, issued before, is refused everywhere too.
      assert.equal((await inject(node, member.token, 'GET', '/auth/users')).statusCode, 401);
    }
  });

  test('a stopped node catches up when it comes back, while the others kept taking writes', async (t) => {
    const [a, b] = cluster.nodes as [TestServer, TestServer, TestServer];
    const { token, tenantId } = await a.registerTenant();
    await cluster.settle();
    await cluster.stop('c');
    const away = 200;
    for (let i = 0; i < away; i += 10) {
      await Promise.all(
        Array.from({ length: 10 }, async (_v, j) => {
          const n = i + j;
          const res = await inject(n % 2 === 0 ? a : b, token, 'POST', '/api/v1/documents', {
            id: `while-away-${n}`,
            title: `Written while c was away ${n}`,
            content: `Document ${n}`,
          });
          assert.equal(res.statusCode, 201, res.body);
        }),
      );
    }
    assert.equal((await inject(b, token, 'DELETE', '/api/v1/documents/while-away-3')).statusCode, 200);
    const last = `while-away-${away - 1}`;
    // Written on b, patched on b.
    const patched = await inject(b, token, 'PATCH', `/api/v1/documents/${last}`, { title: 'Last' });
    assert.equal(patched.statusCode, 200, patched.body);
    // Node c comes back on its data folder. It answers its health and readiness checks at once, and its API only
    // once it replayed what it missed: until then 503 CLUSTER_CATCHING_UP, never an answer from a copy behind.
    const c = await cluster.start('c', { waitUntilStarted: false });
    const seen = { refused: 0, notReady: 0 };
    let started = false;
    void c.started.then(() => (started = true));
    for (;;) {
      const done = started;
      // Read before /readyz: a node that still catches up then was catching up when its metrics were read too.
      const metrics = (await c.app.inject({ method: 'GET', url: '/metrics' })).body;
      const ready = await c.app.inject({ method: 'GET', url: '/readyz' });
      const health = await c.app.inject({ method: 'GET', url: '/healthz' });
      assert.equal(health.statusCode, 200, health.body);
      if (ready.statusCode === 503) {
        const body = ready.json() as { cluster: { catching_up?: { applied_seq: number; target_seq: number } } };
        assert.ok(body.cluster.catching_up, ready.body);
        assert.match(metrics, /^godb_cluster_catching_up 1$/m);
        seen.notReady += 1;
      }
      const read = await inject(c, token, 'GET', `/api/v1/documents/${last}`);
      if (read.statusCode === 503) {
        const error = (read.json() as { error: { code: string; message: string } }).error;
        assert.equal(error.code, 'CLUSTER_CATCHING_UP', read.body);
        assert.match(error.message, /is catching up: \d+ of \d+ applied/);
        assert.ok(read.headers['retry-after'], 'says when to retry');
        seen.refused += 1;
      } else {
        assert.equal(read.statusCode, 200, read.body);
        assert.equal(
          (read.json() as { document: { title: string } }).document.title,
          'Last',
          'never a version from before it caught up',
        );
      }
      if (done) break;
      await new Promise((resolve) => setImmediate(resolve));
    }
    // How many answers came before the node served (5 and 11 in two runs here; a machine fast enough to replay 200
    // operations and hash the super admin's password before the first request would see none, which is no failure:
    // every answer above was checked either way).
    t.diagnostic(`answered while catching up: ${JSON.stringify(seen)}`);
    assert.match((await c.app.inject({ method: 'GET', url: '/metrics' })).body, /^godb_cluster_catching_up 0$/m);
    await cluster.settle();
    const digests = cluster.nodes.map((n) => digest(n, tenantId));
    assert.equal(digests[0]!.documents, away + 1, 'every document, and the patched one in two versions');
    assert.deepEqual(digests[2], digests[0]);
    assert.deepEqual(digests[1], digests[0]);
  });

  test('an operation published twice (a retry after a lost acknowledgement) is applied once on every node', async () => {
    const [a] = cluster.nodes as [TestServer];
    const { token, tenantId, userId } = await a.registerTenant();
    const viewer = { tenantId, userId, groups: [] };
    const prepared = a.engine.documents.preparation.prepare(
      viewer,
      [{ id: 'once', title: 'Once', content: 'Applied once.' }],
      () => 'body',
    );
    await a.engine.documents.preparation.embed(prepared);
    const op = {
      kind: 'write-documents' as const,
      viewer,
      documents: prepared,
      paths: ['body'],
      id: randomUUID(),
      node: 'a',
      now: Date.now(),
    };
    const first = await a.cluster!.publish(op);
    const before = await a.cluster!.lastSequence();
    const second = await a.cluster!.publish(op);
    assert.deepEqual(second, first);
    assert.equal(await a.cluster!.lastSequence(), before, 'JetStream stored the retry as a duplicate');
    await cluster.settle();
    for (const node of cluster.nodes) {
      const res = await inject(node, token, 'GET', '/api/v1/documents/once');
      assert.equal(res.statusCode, 200, res.body);
      assert.equal((res.json() as { document: { version: number } }).document.version, 1);
    }
    assert.deepEqual(first, [{ id: 'once', version: 1 }]);
  });
  // Bounds for a broken cluster (the test fails instead of hanging), not assertions on speed.
  const bound = { timeout: 180_000 };

  /**
   * A write as a client that retries 503 CLUSTER_UNAVAILABLE does it (at most three times, with the same
   * Idempotency-Key): right after a NATS server dies or comes back, a slow leader election on a loaded machine can
   * outlast one NATS_PUBLISH_TIMEOUT_MS, and an attempt NATS stored after all is applied once.
   */
  /**
   * Adds a document through `node` as a client retrying a 503 with the same Idempotency-Key would (three attempts),
   * checked acknowledged (201) in the end.
   */
  const addRetrying = async (node: TestServer, token: string, document: object) => {
    const key = randomUUID();
    for (let attempt = 1; ; attempt += 1) {
      const res = await inject(node, token, 'POST', '/api/v1/documents', document, { 'idempotency-key': key });
      if (res.statusCode !== 503 || attempt === 3) {
        assert.equal(res.statusCode, 201, res.body);
        return;
      }
    }
  };

  test(
    'with one NATS node of three killed, every GoDB node keeps taking writes; restarted, it rejoins',
    bound,
    async () => {
      const [a, b, c] = cluster.nodes as [TestServer, TestServer, TestServer];
      const { token, tenantId } = await a.registerTenant();
      await cluster.settle();
      // The meta leader: until another is elected, no consumer can be made, and each GoDB node whose consumers lived
      // on it reads its shards from their streams' leaders meanwhile.
      const killed = await cluster.nats.metaLeader();
      await cluster.nats.kill(killed);
      for (const [i, node] of [a, b, c].entries()) {
        await addRetrying(node, token, {
          id: `nats-down-${i}`,
          title: `Written with a NATS node down (${i})`,
          content: 'Still acknowledged by a majority.',
        });
      }
      await cluster.nats.restart(killed);
      await addRetrying(b, token, {
        id: 'nats-back',
        title: 'Back',
        content: 'All three.',
      });
      await cluster.settle();
      const digests = cluster.nodes.map((n) => digest(n, tenantId));
      // Four documents, each in one version: a retried write that NATS had stored after all is applied once.
      assert.equal(digests[0]!.documents, 4, JSON.stringify(digests));
      assert.deepEqual(digests[1], digests[0]);
      assert.deepEqual(digests[2], digests[0]);
    },
  );

  test(
    'with two NATS nodes of three down, writes answer 503 CLUSTER_UNAVAILABLE and reads continue',
    bound,
    async () => {
      const [a, b] = cluster.nodes as [TestServer, TestServer, TestServer];
      const { token } = await a.registerTenant();
      await addDocument(a, token, {
        id: 'kept',
        title: 'Kept',
        content: 'Before.',
      });
      await cluster.settle();
      await Promise.all([cluster.nats.stop(1), cluster.nats.stop(2)]);
      const refused = await inject(a, token, 'POST', '/api/v1/documents', {
        title: 'Refused',
        content: 'No majority.',
      });
      assert.equal(refused.statusCode, 503, refused.body);
      assert.equal((refused.json() as { error: { code: string } }).error.code, 'CLUSTER_UNAVAILABLE');
      const read = await inject(b, token, 'GET', '/api/v1/documents/kept');
      assert.equal(read.statusCode, 200, read.body);
      await Promise.all([cluster.nats.restart(1), cluster.nats.restart(2)]);
      await addRetrying(b, token, {
        id: 'after',
        title: 'After',
        content: 'Majority back.',
      });
      await cluster.settle();
    },
  );
});
