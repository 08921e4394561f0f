import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { ClusterView } from '@godb/contract';
import { collectionId } from './partition/placement-records.js';
import { documentShard } from './partition/document-shard.js';
import { call } from '../test-support/partitioned-pair.js';
import { startTestServer, type TestServer } from '../test-support/server.js';
import { startTestCluster, type TestCluster } from '../test-support/test-cluster.js';
import { until } from '../test-support/until.js';

/**
 * Issue #41, partitioned collections (decision 0062): on a real three-node cluster (three nats-server processes), a
 * collection created with `shards: 6, replication_factor: 2` is spread over the nodes, each holding part of it;
 * a vector search through any node answers what one embedded node holding everything answers.
 */
const docs = 60;
const vectorOf = (i: number) => [Math.sin(i), Math.cos(i * 0.7), Math.sin(i * 1.3 + 1), 0.5 + (i % 7) / 10];
const documentOf = (i: number) => ({
  id: `paper-${i}`,
  title: `Paper ${i}`,
  content: `shock waves and boundary layers, study ${i}`,
  primary_table: 'papers',
  vectors: { v: vectorOf(i) },
});

type Hit = { document_id: string; score: number };

describe('a partitioned collection in a three-node cluster (issue #41)', () => {
  let cluster: TestCluster;
  let single: TestServer;
  before(async () => {
    cluster = await startTestCluster({
      prefix: 'part',
      env: { NATS_PUBLISH_TIMEOUT_MS: '5000', CLUSTER_COLLECTION_SHARDS: '3' },
    });
    single = await startTestServer();
  });
  after(async () => {
    await single?.close();
    await cluster?.close();
  });

  test('spread over the nodes, none holding all, searched through any node as one node holding everything', async () => {
    const [a, b, c] = cluster.nodes as [TestServer, TestServer, TestServer];
    const tenant = await a.registerTenant();
    const created = await call(a, 'POST', '/api/v1/collections', tenant.token, {
      name: 'papers',
      vectors: { v: { dimensions: 4 } },
      shards: 6,
      replication_factor: 2,
    });
    assert.equal(created.status, 201, created.raw);
    const tooMany = await call(a, 'POST', '/api/v1/collections', tenant.token, {
      name: 'wide',
      shards: 6,
      replication_factor: 4,
    });
    assert.equal(tooMany.status, 400, tooMany.raw);
    assert.match(tooMany.raw, /replication_factor/);
    // A creation naming no `shards` takes the cluster's default (CLUSTER_COLLECTION_SHARDS).
    const defaulted = await call(a, 'POST', '/api/v1/collections', tenant.token, { name: 'defaulted' });
    assert.equal(defaulted.status, 201, defaulted.raw);

    // The same documents written through every node in turn, and into one embedded node.
    const nodes = [a, b, c];
    for (let i = 0; i < docs; i += 1) {
      const res = await call(nodes[i % 3]!, 'POST', '/api/v1/documents', tenant.token, documentOf(i));
      assert.equal(res.status, 201, res.raw);
      assert.ok(res.headers['x-godb-seq'], 'a write answers its place in the log');
    }
    const alone = await single.registerTenant();
    const plain = await call(single, 'POST', '/api/v1/collections', alone.token, {
      name: 'papers',
      vectors: { v: { dimensions: 4 } },
    });
    assert.equal(plain.status, 201, plain.raw);
    for (let i = 0; i < docs; i += 1) {
      assert.equal((await call(single, 'POST', '/api/v1/documents', alone.token, documentOf(i))).status, 201);
    }

    // Each document is on two of the three nodes, all on none.
    const held = async () =>
      Promise.all(
        nodes.map(async (n) => {
          const res = await call(n, 'GET', '/api/v1/collections/papers', tenant.token);
          return res.body.documents as number;
        }),
      );
    let counts: number[] = [];
    await until(
      async () => {
        counts = await held();
        return counts.reduce((x, y) => x + y, 0) === docs * 2;
      },
      () => `every document is held twice: ${counts.join(', ')}`,
    );

    // The placement in GET /api/v1/cluster: six shards, two replicas each, epoch 1.
    const view = (await call(b, 'GET', '/api/v1/cluster', tenant.token)).body as unknown as ClusterView;
    const papers = view.collections.find((col) => col.name === 'papers' && col.tenant_id === tenant.tenantId);
    assert.ok(papers, JSON.stringify(view.collections));
    assert.equal(papers.epoch, 1);
    assert.equal(papers.shards.length, 6);
    for (const s of papers.shards) assert.equal(new Set(s.replicas).size, 2);
    // Twelve replicas balanced over three nodes: four shards each. Each node holds exactly the documents of its
    // shards, how many depends on how 60 ids hash (a node once held 49, 82 %), so the 40-80 % bounds are
    // asserted where they are stated, on five nodes (issue-41-shard-moves.test.ts).
    const collection = collectionId(tenant.tenantId, 'papers');
    const names = ['a', 'b', 'c'];
    const shardsOf = names.map((name) => papers.shards.filter((s) => s.replicas.includes(name)).length);
    assert.deepEqual(shardsOf, [4, 4, 4]);
    const expected = names.map(
      (name) =>
        Array.from({ length: docs }, (_, i) => i).filter((i) =>
          papers.shards[documentShard(collection, `paper-${i}`, 6)]!.replicas.includes(name),
        ).length,
    );
    assert.deepEqual(counts, expected, `held ${counts.join(', ')}, placed ${expected.join(', ')}`);
    for (const n of counts) assert.ok(n > 0 && n < docs, `holds ${counts.join(', ')}`);
    const byDefault = view.collections.find((col) => col.name === 'defaulted' && col.tenant_id === tenant.tenantId);
    assert.deepEqual([byDefault?.shards.length, byDefault?.replication_factor], [3, 3]);

    // Vector search through every node: the ids, order and scores of the embedded node.
    const query = { primary_table: 'papers', vector_name: 'v', vector: [0.3, -0.2, 0.9, 0.6], threshold: 0, limit: 10 };
    const reference = (await call(single, 'POST', '/api/v1/search/vector', alone.token, query)).body.results as Hit[];
    assert.equal(reference.length, 10);
    for (const node of nodes) {
      const res = await call(node, 'POST', '/api/v1/search/vector', tenant.token, query);
      assert.equal(res.status, 200, res.raw);
      const hits = res.body.results as Hit[];
      assert.deepEqual(
        hits.map((h) => h.document_id),
        reference.map((h) => h.document_id),
      );
      hits.forEach((h, i) =>
        assert.ok(Math.abs(h.score - reference[i]!.score) < 1e-6, `${h.score} vs ${reference[i]!.score}`),
      );
    }

    // Recommendations by the collection's own vector, fanned out over the shards: one node's answer.
    const near = { primary_table: 'papers', vector_name: 'v', vector: [0.3, -0.2, 0.9, 0.6], min_similarity: 0 };
    const recommended = (await call(single, 'POST', '/api/v1/search/recommendations', alone.token, near)).body;
    for (const node of nodes) {
      const res = await call(node, 'POST', '/api/v1/search/recommendations', tenant.token, near);
      assert.equal(res.status, 200, res.raw);
      assert.deepEqual(
        (res.body.results as Hit[]).map((h) => [h.document_id, h.score]),
        (recommended.results as Hit[]).map((h) => [h.document_id, h.score]),
      );
    }

    // A write through a node that holds none of its shard's replicas: answered once a holder applied it, and found.
    let chosen: { node: TestServer; id: string } | null = null;
    for (let i = 1000; chosen === null; i += 1) {
      const replicas = papers.shards[documentShard(collection, `late-${i}`, 6)]!.replicas;
      const outsider = ['a', 'b', 'c'].find((name) => !replicas.includes(name));
      if (outsider) chosen = { node: cluster.node(outsider), id: `late-${i}` };
    }
    const late = { ...documentOf(0), id: chosen.id, vectors: { v: [-0.9, 0.1, -0.4, 0.2] } };
    assert.equal((await call(chosen.node, 'POST', '/api/v1/documents', tenant.token, late)).status, 201);
    const found = await call(chosen.node, 'POST', '/api/v1/search/vector', tenant.token, {
      ...query,
      vector: late.vectors.v,
      limit: 1,
    });
    assert.equal((found.body.results as Hit[])[0]?.document_id, chosen.id, found.raw);
  });
});
