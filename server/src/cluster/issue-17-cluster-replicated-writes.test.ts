import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startNatsCluster, type NatsCluster } from '../test-support/nats-cluster.js';
import { bearer, startTestServer, type TestServer } from '../test-support/server.js';

const jwtSecret = 'a-cluster-wide-secret-of-32-characters-or-more';

/**
 * Issue #17, the writes the first slices left on one node: files uploaded with documents, jobs, mail. Three real
 * nats-server processes and three GoDB nodes on loopback; a request taken by one node is seen alike on the others.
 */
describe('cluster mode: files, jobs and mail on every node (issue #17)', () => {
  let nats: NatsCluster;
  const dirs: string[] = [];
  const nodes: TestServer[] = [];
  // A bound for a broken cluster (the test fails instead of hanging), not an assertion on speed.
  const bound = { timeout: 120_000 };

  const settle = async () => {
    const last = await nodes[0]!.cluster!.lastSequence();
    await Promise.all(nodes.map((n) => n.cluster!.waitFor(last)));
  };

  const inject = (node: TestServer, token: string, method: 'GET' | 'POST' | 'DELETE', url: string, payload?: object) =>
    node.app.inject({ method, url, headers: bearer(token), ...(payload && { payload }) });

  before(async () => {
    nats = await startNatsCluster();
    for (const name of ['a', 'b', 'c']) {
      const dir = mkdtempSync(join(tmpdir(), `godb-cluster-writes-${name}-`));
      dirs.push(dir);
      nodes.push(await startTestServer({ NATS_URL: nats.url, NODE_ID: name, JWT_SECRET: jwtSecret, DATA_DIR: dir }));
    }
  });

  after(async () => {
    await Promise.all(nodes.map((n) => n.close()));
    await nats?.stop();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  test(
    'a file uploaded on one node downloads from every node, and a purge deletes it from the shared store',
    bound,
    async () => {
      const [a, b, c] = nodes as [TestServer, TestServer, TestServer];
      const { token, tenantId } = await a.registerTenant();
      const bytes = Buffer.from('%PDF-1.4 a file uploaded to node a\n');
      const added = await inject(a, token, 'POST', '/api/v1/documents', {
        id: 'report',
        title: 'Report',
        content: 'A report with its file.',
        file_content: bytes.toString('base64'),
        file_type: 'application/pdf',
      });
      assert.equal(added.statusCode, 201, added.body);
      await settle();
      for (const node of nodes) {
        const download = await inject(node, token, 'GET', '/api/v1/documents/report/file');
        assert.equal(download.statusCode, 200, `${node.cluster!.status().node}: ${download.body}`);
        assert.deepEqual(download.rawPayload, bytes);
      }
      // Every node recorded the same key: the one object in the shared store.
      const keys = nodes.map(
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
      await settle();
      assert.equal(await c.engine.files!.store.has(key), false);
      for (const node of nodes) {
        assert.equal((await inject(node, token, 'GET', '/api/v1/documents/report/file')).statusCode, 404);
        assert.equal((node.engine.db.prepare('SELECT count(*) AS n FROM file_deletions').get() as { n: number }).n, 0);
      }
    },
  );
});
