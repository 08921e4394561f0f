import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { clusterHandling } from '@godb/contract';
import { bearer, type TestServer } from '../test-support/server.js';
import { documentWithFile, startTestCluster, type TestCluster } from '../test-support/test-cluster.js';

interface Job {
  id: string;
  status: string;
  processed: number;
  total: number;
  error?: string;
  written?: number;
}

/**
 * Issue #17, the writes the first slices left on one node: files uploaded with documents, jobs, mail. Three real
 * nats-server processes and three GoDB nodes on loopback; a request taken by one node is seen alike on the others.
 */
describe('cluster mode: files, jobs and mail on every node (issue #17)', () => {
  let cluster: TestCluster;
  // A bound for a broken cluster (the test fails instead of hanging), not an assertion on speed.
  const bound = { timeout: 120_000 };

  const inject = (node: TestServer, token: string, method: 'GET' | 'POST' | 'DELETE', url: string, payload?: object) =>
    node.app.inject({ method, url, headers: bearer(token), ...(payload && { payload }) });

  /** GET /api/v1/jobs/{id} on a node until `done` says it is there. */
  const pollJob = async (node: TestServer, token: string, id: string, done: (job: Job) => boolean) => {
    for (;;) {
      const res = await inject(node, token, 'GET', `/api/v1/jobs/${id}`);
      if (res.statusCode === 200 && done(res.json() as Job)) return res.json() as Job;
      await sleep(100);
    }
  };

  before(async () => {
    cluster = await startTestCluster({ prefix: 'writes' });
  });

  after(() => cluster?.close());

  test('no operation of the catalogue is refused in cluster mode any more', () => {
    const refused = Object.entries(clusterHandling).filter(([, handling]) => (handling as string) === 'refused');
    assert.deepEqual(refused, []);
  });

  test(
    'a file uploaded on one node downloads from every node, and a purge deletes it from the shared store',
    bound,
    async () => {
      const [a, b, c] = cluster.nodes as [TestServer, TestServer, TestServer];
      const { token, tenantId } = await a.registerTenant();
      const bytes = Buffer.from('%PDF-1.4 a file uploaded to node a\n');
      const added = await inject(a, token, 'POST', '/api/v1/documents', documentWithFile('report', bytes));
      assert.equal(added.statusCode, 201, added.body);
      await cluster.settle();
      for (const node of cluster.nodes) {
        const download = await inject(node, token, 'GET', '/api/v1/documents/report/file');
        assert.equal(download.statusCode, 200, `${node.cluster!.status().node}: ${download.body}`);
        assert.deepEqual(download.rawPayload, bytes);
      }
      // Every node recorded the same key: the one object in the shared store.
      const keys = cluster.nodes.map(
        (node) =>
          (
            node.engine.db
              .prepare(
                `SELECT json_extract(fields, '$.file_path') AS key FROM documents WHERE tenant_id = ? AND id = ?`,
              )
              .get(tenantId, 'report') as { key: string }
          ).key,
      );
      assert.equal(new Set(keys).size, 1);
      const key = keys[0]!;
      assert.equal(await a.engine.files!.store.has(key), true);

      // Purged through node b: every node drops the row, node b deletes the object, and no node owes it any more.
      const purged = await inject(b, token, 'DELETE', '/api/v1/documents/report?permanent=true');
      assert.equal(purged.statusCode, 200, purged.body);
      await cluster.settle();
      assert.equal(await c.engine.files!.store.has(key), false);
      for (const node of cluster.nodes) {
        assert.equal((await inject(node, token, 'GET', '/api/v1/documents/report/file')).statusCode, 404);
        assert.equal((node.engine.db.prepare('SELECT count(*) AS n FROM file_deletions').get() as { n: number }).n, 0);
      }
    },
  );

  test(
    'a file upload retried with its Idempotency-Key on another node leaves one object in the shared store',
    bound,
    async () => {
      const [a, b] = cluster.nodes as [TestServer, TestServer, TestServer];
      const { token, tenantId } = await a.registerTenant();
      const document = documentWithFile('retried', Buffer.from('%PDF-1.4 sent twice\n'));
      const headers = { ...bearer(token), 'idempotency-key': randomUUID() };
      const send = (node: TestServer) =>
        node.app.inject({ method: 'POST', url: '/api/v1/documents', headers, payload: document });
      const first = await send(a);
      assert.equal(first.statusCode, 201, first.body);
      // The answer to the first attempt was lost, say: the client sends the request again, through another node.
      const again = await send(b);
      assert.equal(again.statusCode, 201, again.body);
      assert.deepEqual(again.json(), first.json());
      await cluster.settle();
      const objects = (await a.engine.files!.store.list()).filter((key) => key.startsWith(`${tenantId}/retried/`));
      assert.equal(objects.length, 1, `one object, named by the document: ${objects.join(', ')}`);
      const download = await inject(b, token, 'GET', '/api/v1/documents/retried/file');
      assert.equal(download.statusCode, 200, download.body);
    },
  );

  test('an asynchronous import taken by one node is polled on every node, which answer alike', bound, async () => {
    const [a, b] = cluster.nodes as [TestServer, TestServer, TestServer];
    const { token } = await a.registerTenant();
    const lines = Array.from({ length: 40 }, (_v, i) => JSON.stringify({ id: `line-${i}`, content: `Line ${i}.` }));
    lines.splice(7, 0, '{ not json');
    const started = await a.app.inject({
      method: 'POST',
      url: '/api/v1/documents/import?async=true&batch_size=5',
      headers: { ...bearer(token), 'content-type': 'application/x-ndjson' },
      payload: lines.join('\n'),
    });
    assert.equal(started.statusCode, 202, started.body);
    const { job_id: jobId } = started.json() as { job_id: string };
    // Polled through another node, as behind a load balancer: it knows the job, and sees it end.
    const ended = await pollJob(b, token, jobId, (job) => job.status === 'done' || job.status === 'failed');
    assert.equal(ended.status, 'done', JSON.stringify(ended));
    assert.equal(ended.written, 40);
    await cluster.settle();
    const answers = await Promise.all(cluster.nodes.map((n) => inject(n, token, 'GET', `/api/v1/jobs/${jobId}`)));
    for (const answer of answers) assert.deepEqual(answer.json(), answers[0]!.json());
    assert.equal((answers[0]!.json() as { failed: number }).failed, 1);
  });

  test('the unfinished jobs of a node that left the cluster are marked failed by the lease holder', bound, async () => {
    const [a, b] = cluster.nodes as [TestServer, TestServer, TestServer];
    const { token, tenantId } = await a.registerTenant();
    // A job whose node ("gone-node") never reported its progress: it counts as gone.
    const job = { id: `job-${randomUUID()}`, tenantId, userId: 'someone', kind: 'import-documents', total: 10 };
    await a.cluster!.submit({ kind: 'job', method: 'create', args: [{ ...job, node: 'gone-node' }] });
    await a.cluster!.submit({ kind: 'job', method: 'update', args: [job.id, { status: 'running', processed: 3 }] });
    const failed = await pollJob(b, token, job.id, (j) => j.status === 'failed');
    assert.match(failed.error ?? '', /gone-node\) left the cluster during it; 3 of 10 lines were read/);
  });

  test('a node that restarts marks failed the jobs it was running', bound, async () => {
    const [a] = cluster.nodes as [TestServer, TestServer, TestServer];
    const { token, tenantId } = await a.registerTenant();
    const job = { id: `job-${randomUUID()}`, tenantId, userId: 'someone', kind: 'add-document', total: 1 };
    await a.cluster!.submit({ kind: 'job', method: 'create', args: [{ ...job, node: 'c' }] });
    await a.cluster!.submit({ kind: 'job', method: 'update', args: [job.id, { status: 'running' }] });
    await cluster.settle();
    await cluster.stop('c');
    await cluster.start('c');
    const failed = await pollJob(a, token, job.id, (j) => j.status === 'failed');
    assert.match(failed.error ?? '', /\(c\) stopped during it; 0 of 1 documents were written/);
  });

  test(
    'tenant snapshots: taken on one node, listed, downloaded, uploaded, deleted and restored on every node',
    bound,
    async () => {
      const [a, b, c] = cluster.nodes as [TestServer, TestServer, TestServer];
      const { token, tenantId } = await a.registerTenant();
      for (const id of ['kept', 'changed', 'removed'])
        assert.equal(
          (await inject(a, token, 'POST', '/api/v1/documents', { id, content: `${id}, before.` })).statusCode,
          201,
        );
      const taken = await inject(a, token, 'POST', '/api/v1/snapshots');
      assert.equal(taken.statusCode, 202, taken.body);
      const { snapshot_id: snapshotId, job_id: takenJob } = taken.json() as { snapshot_id: string; job_id: string };
      assert.equal(
        (await pollJob(b, token, takenJob, (j) => j.status !== 'queued' && j.status !== 'running')).status,
        'done',
      );
      const listed = await inject(c, token, 'GET', '/api/v1/snapshots');
      assert.deepEqual(
        (listed.json() as { snapshots: { id: string }[] }).snapshots.map((x) => x.id),
        [snapshotId],
      );
      const download = await inject(b, token, 'GET', `/api/v1/snapshots/${snapshotId}`);
      assert.equal(download.statusCode, 200);
      const archive = download.rawPayload;

      // Deleted through node b: no node lists it; uploaded again through node c: every node lists it.
      assert.equal((await inject(b, token, 'DELETE', `/api/v1/snapshots/${snapshotId}`)).statusCode, 200);
      for (const node of cluster.nodes)
        assert.deepEqual((await inject(node, token, 'GET', '/api/v1/snapshots')).json(), { snapshots: [] });
      const uploaded = await c.app.inject({
        method: 'POST',
        url: '/api/v1/snapshots/upload',
        headers: { ...bearer(token), 'content-type': 'application/x-tar' },
        payload: archive,
      });
      assert.equal(uploaded.statusCode, 201, uploaded.body);

      // Changes after the snapshot, on several nodes; then a restore taken by node c, applied by every node.
      assert.equal(
        (await inject(b, token, 'POST', '/api/v1/documents', { id: 'changed', content: 'after.' })).statusCode,
        201,
      );
      assert.equal((await inject(c, token, 'DELETE', '/api/v1/documents/removed?permanent=true')).statusCode, 200);
      assert.equal(
        (await inject(a, token, 'POST', '/api/v1/documents', { id: 'later', content: 'After.' })).statusCode,
        201,
      );
      const restored = await inject(c, token, 'POST', '/api/v1/snapshots/restore', { snapshot_id: snapshotId });
      assert.equal(restored.statusCode, 202, restored.body);
      const { job_id: restoreJob } = restored.json() as { job_id: string };
      const ended = await pollJob(a, token, restoreJob, (j) => j.status !== 'queued' && j.status !== 'running');
      assert.equal(ended.status, 'done', JSON.stringify(ended));
      // The snapshot can go: every node restored from the copy the restore operation names.
      assert.equal((await inject(a, token, 'DELETE', `/api/v1/snapshots/${snapshotId}`)).statusCode, 200);
      await cluster.settle();
      const rows = cluster.nodes.map((node) =>
        JSON.stringify(
          node.engine.db
            .prepare(
              'SELECT id, version, superseded, deleted_at, created_at, updated_at, title FROM documents WHERE tenant_id = ? ORDER BY id, version',
            )
            .all(tenantId),
        ),
      );
      assert.equal(new Set(rows).size, 1, rows.join('\n'));
      for (const node of cluster.nodes) {
        const ids = node.engine.db
          .prepare('SELECT id FROM documents WHERE tenant_id = ? AND superseded = 0 AND deleted_at IS NULL ORDER BY id')
          .pluck()
          .all(tenantId);
        assert.deepEqual(ids, ['changed', 'kept', 'removed']);
        const search = await inject(node, token, 'GET', '/api/v1/documents/changed');
        assert.equal(search.statusCode, 200, search.body);
        assert.match(search.body, /changed, before\./);
      }
    },
  );
});
