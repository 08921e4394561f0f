import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  credentials,
  Metadata,
  type ClientWritableStream,
  type GrpcObject,
  type ServiceClientConstructor,
  type ServiceError,
} from '@grpc/grpc-js';
import { freePort } from '../test-support/nats-cluster.js';
import { bearer, type TestServer } from '../test-support/server.js';
import { startTestCluster, type TestCluster } from '../test-support/test-cluster.js';
import { loadGodbProto } from '../transport/grpc/grpc-server.js';

interface ImportReply {
  written: number;
  failed: number;
  results: { document_id?: string }[];
}
type ImportClient = {
  ImportDocuments(md: Metadata, cb: (e: ServiceError | null, r: ImportReply) => void): ClientWritableStream<unknown>;
  close(): void;
};

/**
 * Issue #17, review of the first slice: an operation that fails on one node only stops that node (never skipped),
 * a write whose node cannot apply it answers 503 CLUSTER_LAGGING instead of hanging, and a write retried with its
 * Idempotency-Key is applied once, whichever node takes the retry. Real nats-server processes and GoDB servers.
 */
describe('cluster mode: applying the log, bounded waits and idempotent retries (issue #17)', () => {
  let cluster: TestCluster;
  // Bounds for a broken cluster (the test fails instead of hanging), not assertions on speed.
  const bound = { timeout: 120_000 };

  /** What a tenant holds on one node, hashed: every document version, and the tenant's API keys. */
  const digest = (node: TestServer, tenantId: string) => {
    const rows = node.engine.db
      .prepare(
        `SELECT id, version, superseded, deleted_at, created_at, updated_at, title, fields
         FROM documents WHERE tenant_id = ? ORDER BY id`,
      )
      .all(tenantId);
    return {
      documents: rows.length,
      hash: createHash('sha256').update(JSON.stringify(rows)).digest('hex'),
    };
  };

  const write = (node: TestServer, token: string, payload: object, key?: string) =>
    node.app.inject({
      method: 'POST',
      url: '/api/v1/documents',
      headers: { ...bearer(token), ...(key !== undefined && { 'idempotency-key': key }) },
      payload,
    });

  before(async () => {
    cluster = await startTestCluster({
      prefix: 'apply',
      env: async () => ({ NATS_PUBLISH_TIMEOUT_MS: '3000', GRPC_PORT: String(await freePort()) }),
    });
  });

  after(() => cluster?.close());

  test(
    'an operation that fails on one node only stops that node before it, in /readyz, until the node can apply it',
    bound,
    async () => {
      const [a, b, c] = cluster.nodes as [TestServer, TestServer, TestServer];
      const { token, tenantId } = await a.registerTenant();
      await cluster.settle();
      // Node b's store refuses one document, as a full disk would: on this node only, not a refusal of the API.
      b.engine.db.exec(
        `CREATE TEMP TRIGGER refuse_poison BEFORE INSERT ON main.documents WHEN NEW.title = 'Poison'
         BEGIN SELECT RAISE(ABORT, 'disk I/O error (simulated)'); END`,
      );
      const poison = await write(a, token, { id: 'poison', title: 'Poison', content: 'Fails on node b only.' });
      assert.equal(poison.statusCode, 201, poison.body);
      // The token names the directory's shard and the tenant's (last; the same when the tenant is on shard 0): the
      // poison is the tenant shard's sequence in it.
      const tenantPlace = String(poison.headers['x-godb-seq']).split(',').at(-1);
      const [poisonShard, poisonSeq] = (tenantPlace ?? '').split(':').map(Number) as [number, number];
      assert.ok(poisonShard >= 0 && poisonSeq > 0, String(poison.headers['x-godb-seq']));
      const next = await write(a, token, { id: 'next', title: 'Next', content: 'After the poison.' });
      assert.equal(next.statusCode, 201, next.body);

      while (!b.cluster!.status().halted) await sleep(50);
      const readyz = await b.app.inject({ method: 'GET', url: '/readyz' });
      assert.equal(readyz.statusCode, 503, readyz.body);
      const halted = (
        readyz.json() as {
          cluster: {
            shards: { shard: number; applied_seq: number }[];
            halted_shard: number;
            halted_at_seq: number;
            halted_because: string;
          };
        }
      ).cluster;
      assert.equal(halted.halted_shard, poisonShard);
      assert.equal(halted.halted_at_seq, poisonSeq);
      assert.equal(halted.shards[poisonShard]!.applied_seq, poisonSeq - 1);
      assert.match(halted.halted_because, /disk I\/O error \(simulated\)/);
      assert.match((await b.app.inject({ method: 'GET', url: '/metrics' })).body, /^godb_cluster_halted 1$/m);
      // Node b did not go past the operation it could not apply: the later one is not there either.
      for (const id of ['poison', 'next']) {
        const res = await b.app.inject({ method: 'GET', url: `/api/v1/documents/${id}`, headers: bearer(token) });
        assert.equal(res.statusCode, 404, res.body);
      }

      // A write taken by the stuck node is stored in the log, but the node cannot apply it: 503 CLUSTER_LAGGING
      // within NATS_PUBLISH_TIMEOUT_MS, not a request held for ever.
      const key = `taken-by-b-${randomUUID()}`;
      const onB = await write(b, token, { title: 'Taken by b', content: 'While b is stuck.' }, key);
      assert.equal(onB.statusCode, 503, onB.body);
      const lagging = (onB.json() as { error: { code: string; message: string } }).error;
      assert.equal(lagging.code, 'CLUSTER_LAGGING');
      assert.match(lagging.message, /stored in the log \(shard \d+, sequence \d+\)/);
      assert.match(lagging.message, /same Idempotency-Key/);

      // The disk has room again: node b applies the operation it stopped at, then the rest, and is ready.
      b.engine.db.exec('DROP TRIGGER refuse_poison');
      await cluster.settle();
      const ready = await b.app.inject({ method: 'GET', url: '/readyz' });
      assert.equal(ready.statusCode, 200, ready.body);
      assert.equal((ready.json() as { cluster: { halted_at_seq?: number } }).cluster.halted_at_seq, undefined);

      // The client retries the 503 with its key, on another node: answered as a write, applied once.
      const retried = await write(c, token, { title: 'Taken by b', content: 'While b is stuck.' }, key);
      assert.equal(retried.statusCode, 201, retried.body);
      await cluster.settle();
      const digests = cluster.nodes.map((n) => digest(n, tenantId));
      assert.equal(digests[0]!.documents, 3, JSON.stringify(digests));
      assert.deepEqual(digests[1], digests[0]);
      assert.deepEqual(digests[2], digests[0]);
    },
  );

  test(
    'an operation every node refuses is recorded as applied everywhere, and the nodes stay equal',
    bound,
    async () => {
      const [a, b] = cluster.nodes as [TestServer, TestServer, TestServer];
      const { tenantId, userId } = await a.registerTenant();
      const viewer = { tenantId, userId, groups: [] };
      // A delete of a document that does not exist, straight into the log: refused alike on every node.
      await assert.rejects(
        a.cluster!.submit({
          kind: 'delete-document',
          viewer,
          documentId: 'absent',
          recursive: false,
          permanent: false,
        }),
        (error: { code?: string }) => error.code === 'NOT_FOUND',
      );
      const last = await a.cluster!.lastSequence();
      await cluster.settle();
      for (const node of cluster.nodes) {
        assert.equal(node.cluster!.applied, last);
        assert.equal(node.cluster!.status().halted, undefined);
      }
      assert.deepEqual(digest(b, tenantId), digest(a, tenantId));
    },
  );

  test(
    'a write sent again with its Idempotency-Key, on any node, is applied once and answered alike',
    bound,
    async () => {
      const [a, b, c] = cluster.nodes as [TestServer, TestServer, TestServer];
      const { token, tenantId } = await a.registerTenant();
      const other = await a.registerTenant();
      const key = `order-${randomUUID()}`;
      // No id in the body: each request would make a document of its own but for the key.
      const first = await write(a, token, { title: 'Once', content: 'Sent three times.' }, key);
      assert.equal(first.statusCode, 201, first.body);
      const again = await write(b, token, { title: 'Once', content: 'Sent three times.' }, key);
      assert.equal(again.statusCode, 201, again.body);
      const third = await write(a, token, { title: 'Once', content: 'Sent three times.' }, key);
      assert.equal(third.statusCode, 201, third.body);
      assert.deepEqual(again.json(), first.json());
      assert.deepEqual(third.json(), first.json());
      // Keys are scoped by tenant: another tenant's write with the same key is its own.
      const elsewhere = await write(c, other.token, { title: 'Other tenant', content: 'Same key.' }, key);
      assert.equal(elsewhere.statusCode, 201, elsewhere.body);
      // Without a key, the same request twice is two writes.
      for (const node of [a, b]) {
        const res = await write(node, token, { title: 'Twice', content: 'No key.' });
        assert.equal(res.statusCode, 201, res.body);
      }
      await cluster.settle();
      for (const node of cluster.nodes) {
        const count = await node.app.inject({
          method: 'POST',
          url: '/api/v1/documents/count',
          headers: bearer(token),
          payload: {},
        });
        assert.equal((count.json() as { count: number }).count, 3, count.body);
      }
      assert.equal(digest(a, other.tenantId).documents, 1);
      assert.deepEqual(digest(b, tenantId), digest(a, tenantId));
      assert.deepEqual(digest(c, tenantId), digest(a, tenantId));

      const bad = await write(a, token, { title: 'Bad key', content: 'x' }, 'not a valid key!');
      assert.equal(bad.statusCode, 400, bad.body);
      const error = (bad.json() as { error: { code: string; field: string } }).error;
      assert.deepEqual([error.code, error.field], ['VALIDATION_FAILED', 'headers.idempotency-key']);
    },
  );

  test(
    'API keys, visibility, ACLs, engagement, collection updates, deletes by filter and index maintenance taken by one node hold on every node',
    bound,
    async () => {
      const [a, b, c] = cluster.nodes as [TestServer, TestServer, TestServer];
      const admin = await a.registerTenant();
      const member = await a.addUser(admin);
      const call = (
        node: TestServer,
        token: string,
        method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
        url: string,
        payload?: object,
      ) => node.app.inject({ method, url, headers: bearer(token), ...(payload && { payload }) });
      await cluster.settle();

      // An API key made on node a authenticates on node b; revoked on node b, it is refused on node c.
      const created = await call(a, admin.token, 'POST', '/auth/api-keys', { name: 'replicated', role: 'user' });
      assert.equal(created.statusCode, 201, created.body);
      const { key, id: keyId } = created.json() as { key: string; id: string };
      await cluster.settle();
      assert.equal((await call(b, key, 'GET', '/api/v1/collections')).statusCode, 200);
      const listed = await call(c, admin.token, 'GET', '/auth/api-keys');
      assert.deepEqual(
        (listed.json() as { keys: { id: string }[] }).keys.map((k) => k.id),
        [keyId],
        listed.body,
      );
      const revoked = await call(b, admin.token, 'DELETE', `/auth/api-keys/${keyId}`);
      assert.equal(revoked.statusCode, 200, revoked.body);
      await cluster.settle();
      for (const node of cluster.nodes)
        assert.equal((await call(node, key, 'GET', '/api/v1/collections')).statusCode, 401);
      // Revoking it again, on any node, is refused in log order: 404 everywhere alike.
      assert.equal((await call(a, admin.token, 'DELETE', `/auth/api-keys/${keyId}`)).statusCode, 404);

      // A private document: the member reads it on node c only once node a's ACL entry gives it the view role.
      const added = await call(a, admin.token, 'POST', '/api/v1/documents', {
        id: 'guarded',
        title: 'Guarded',
        content: 'Private, then shared with one user.',
        primary_table: 'mixed',
      });
      assert.equal(added.statusCode, 201, added.body);
      const hidden = await call(b, admin.token, 'PUT', '/api/v1/documents/guarded/visibility', {
        visibility: 'private',
      });
      assert.equal(hidden.statusCode, 200, hidden.body);
      await cluster.settle();
      assert.equal((await call(c, member.token, 'GET', '/api/v1/documents/guarded')).statusCode, 404);
      const shared = await call(a, admin.token, 'PUT', '/api/v1/documents/guarded/acl', {
        operation: 'add',
        acl: [{ user_id: member.userId, role: 'view' }],
      });
      assert.equal(shared.statusCode, 200, shared.body);
      await cluster.settle();
      assert.equal((await call(c, member.token, 'GET', '/api/v1/documents/guarded')).statusCode, 200);

      // Engagement counters add up in log order, whichever node took each event.
      const clicks = await call(b, admin.token, 'PATCH', '/api/v1/documents/guarded/engagement', { clicks: 2 });
      assert.equal(clicks.statusCode, 200, clicks.body);
      const more = await call(c, member.token, 'POST', '/api/v1/documents/guarded/engagement', { clicks: 3 });
      assert.equal(more.statusCode, 200, more.body);
      await cluster.settle();
      for (const node of cluster.nodes) {
        const res = await call(node, admin.token, 'GET', '/api/v1/documents/guarded');
        const document = (res.json() as { document: { visibility: string; engagement?: { clicks?: number } } })
          .document;
        assert.deepEqual([document.visibility, document.engagement?.clicks], ['private', 5], res.body);
      }

      // A collection changed on node b reads changed on node c.
      const collection = await call(a, admin.token, 'POST', '/api/v1/collections', {
        name: 'vecs',
        vectors: { default: { dimensions: 3, distance: 'cosine' } },
      });
      assert.equal(collection.statusCode, 201, collection.body);
      const patched = await call(b, admin.token, 'PATCH', '/api/v1/collections/vecs', {
        description: 'Changed on b',
        vectors: { default: { hnsw: { ef_search: 77 } } },
      });
      assert.equal(patched.statusCode, 200, patched.body);
      await cluster.settle();
      for (const node of cluster.nodes) {
        const res = await call(node, admin.token, 'GET', '/api/v1/collections/vecs');
        const got = res.json() as { description: string; vectors: { default: { hnsw: { ef_search: number } } } };
        assert.deepEqual([got.description, got.vectors.default.hnsw.ef_search], ['Changed on b', 77], res.body);
      }

      // A delete by filter taken by node c removes the same documents on every node.
      for (const id of ['old-1', 'old-2', 'kept']) {
        const res = await call(a, admin.token, 'POST', '/api/v1/documents', {
          id,
          title: id,
          content: `Document ${id}.`,
          primary_table: 'mixed',
          tags: id === 'kept' ? ['new'] : ['old'],
        });
        assert.equal(res.statusCode, 201, res.body);
      }
      await cluster.settle();
      const deleted = await call(c, admin.token, 'POST', '/api/v1/documents/delete', {
        primary_table: 'mixed',
        filter: [{ field: 'tags', operator: 'eq', value: 'old' }],
      });
      assert.equal(deleted.statusCode, 200, deleted.body);
      assert.deepEqual(deleted.json(), { success: true, deleted: 2, skipped: 0 });
      await cluster.settle();
      for (const node of cluster.nodes) {
        for (const [id, status] of [
          ['old-1', 404],
          ['old-2', 404],
          ['kept', 200],
        ] as const) {
          assert.equal((await call(node, admin.token, 'GET', `/api/v1/documents/${id}`)).statusCode, status, id);
        }
      }

      // Index maintenance taken by one node runs on every node, with the same outcome.
      const reclustered = await call(b, admin.token, 'POST', '/api/v1/indexes/recluster');
      assert.equal(reclustered.statusCode, 200, reclustered.body);
      const refreshed = await call(c, admin.token, 'POST', '/api/v1/indexes/refresh');
      assert.equal(refreshed.statusCode, 200, refreshed.body);
      assert.equal((refreshed.json() as { documents: number }).documents, 2);
      await cluster.settle();

      // Every node holds the same rows: documents (fields, engagement, visibility), ACLs, collections and keys.
      const state = (node: TestServer) => {
        const db = node.engine.db;
        return {
          documents: digest(node, admin.tenantId),
          maintenance: db
            .prepare('SELECT id, cluster, indexed_at FROM documents WHERE tenant_id = ? ORDER BY id, version')
            .all(admin.tenantId),
          acl: db
            .prepare(
              `SELECT d.id, a.principal, a.role FROM document_access a JOIN documents d ON d.seq = a.doc_seq
               WHERE d.tenant_id = ? ORDER BY d.id, a.principal`,
            )
            .all(admin.tenantId),
          engagement: db
            .prepare('SELECT doc_id, user_id, at, payload FROM engagement_events WHERE tenant_id = ? ORDER BY id')
            .all(admin.tenantId),
          collections: node.engine.collections.list(admin.tenantId),
          keys: db.prepare('SELECT id, name, role, created_at FROM api_keys WHERE tenant_id = ?').all(admin.tenantId),
        };
      };
      assert.deepEqual(state(b), state(a));
      assert.deepEqual(state(c), state(a));
    },
  );

  test(
    'a gRPC import sent again with its idempotency-key metadata, on another node, is applied once',
    bound,
    async () => {
      const [a, b] = cluster.nodes as [TestServer, TestServer, TestServer];
      const { token, tenantId } = await a.registerTenant();
      const pkg = (loadGodbProto().grpc.godb as GrpcObject).v1 as GrpcObject;
      const clients = [a, b].map(
        (node) =>
          new (pkg.DocumentService as ServiceClientConstructor)(
            `127.0.0.1:${node.grpc!.port}`,
            credentials.createInsecure(),
          ) as unknown as ImportClient,
      );
      const importOn = (client: ImportClient, key?: string) => {
        const metadata = new Metadata();
        metadata.set('authorization', `Bearer ${token}`);
        if (key !== undefined) metadata.set('idempotency-key', key);
        return new Promise<ImportReply>((resolve, reject) => {
          const stream = client.ImportDocuments(metadata, (error, reply) => (error ? reject(error) : resolve(reply)));
          // No ids: each import would make documents of its own but for the key.
          for (const title of ['One', 'Two']) stream.write({ line: JSON.stringify({ title, content: `${title}.` }) });
          stream.end();
        });
      };
      try {
        const key = `import-${randomUUID()}`;
        const first = await importOn(clients[0]!, key);
        const again = await importOn(clients[1]!, key);
        assert.equal(first.written, 2);
        assert.deepEqual(
          again.results.map((r) => r.document_id),
          first.results.map((r) => r.document_id),
        );
        await assert.rejects(importOn(clients[0]!, 'not valid!'), (e: ServiceError) =>
          /Idempotency-Key is 1-128/.test(e.details),
        );
        await cluster.settle();
        for (const node of cluster.nodes) assert.equal(digest(node, tenantId).documents, 2);
      } finally {
        for (const client of clients) client.close();
      }
    },
  );
});
