import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { seededRandom } from '../test-support/fuzz-inputs.js';
import type { TestServer } from '../test-support/server.js';
import { startTestCluster, type TestCluster } from '../test-support/test-cluster.js';
import { until } from '../test-support/until.js';

type Result = { document_id: string; score: number };
interface Plan {
  filter: string;
  allowed?: number;
  path: string;
  exact: boolean;
}
type FieldIndexes = Record<string, { state: string; documents: number }>;

/**
 * Issue #39, "the cluster: a node wiped and restored answers the same": three real nats-server processes and three
 * GoDB nodes; a collection with declared field indexes; one node's data folder is deleted, it starts empty, restores
 * the cluster snapshot and replays the log after it, and then answers filtered vector and text searches, counts and
 * their plans exactly as a node that never left, from its own rebuilt indexes.
 */
describe('cluster mode: a wiped node answers filtered searches from its indexes again (issue #39)', () => {
  let cluster: TestCluster;
  const bound = { timeout: 120_000 };
  const name = 'shop';
  const dims = 8;
  const next = seededRandom(3939);
  const vectorOf = () => Array.from({ length: dims }, () => next() * 2 - 1);
  const tags = ['red', 'green', 'blue', 'black', 'white', 'grey', 'pink', 'brown', 'cyan', 'gold', 'teal', 'navy'];
  const total = 2200;
  const words = ['shock', 'wave', 'boundary', 'layer', 'flow', 'drag', 'lift', 'vortex'];

  before(async () => {
    cluster = await startTestCluster({
      prefix: 'wiped',
      // A snapshot after a few operations, so the wiped node restores one and replays the rest from the log.
      env: { CLUSTER_SNAPSHOT_EVERY_OPS: '3', CLUSTER_SNAPSHOT_EVERY_MIN: '0', CLUSTER_LEASE_TTL_MS: '10000' },
    });
  });
  after(() => cluster?.close());

  const holder = () => cluster.nodes.find((n) => n.clusterDuties!.lease.token !== null);
  const indexesOf = async (node: TestServer, token: string) =>
    (await node.call('GET', `/api/v1/collections/${name}`, token)).body.field_indexes as FieldIndexes | undefined;
  const indexesReady = (node: TestServer, token: string) =>
    until(
      async () => {
        const info = await indexesOf(node, token);
        return (
          info !== undefined && Object.keys(info).length === 2 && Object.values(info).every((i) => i.state === 'ready')
        );
      },
      `the field indexes are ready on node ${cluster.nameOf(node)}`,
    );

  /** Documents `from`..`to` of the collection: a vector, a title and content of words, a tag and a price. */
  const documents = (from: number, to: number) =>
    Array.from({ length: to - from }, (_v, j) => {
      const n = from + j;
      return {
        id: `p-${n}`,
        primary_table: name,
        title: `${words[n % words.length]} ${words[(n * 3) % words.length]}`,
        content: Array.from({ length: 4 + (n % 5) }, (_w, k) => words[(n + k * 5) % words.length]).join(' '),
        vector: vectorOf(),
        metadata: { tag: tags[n % tags.length], price: (n * 37) % 100 },
      };
    });

  test(
    'a node wiped and restored answers filtered vector and text searches, counts and plans as another',
    bound,
    async () => {
      const [a, b] = cluster.nodes as [TestServer, TestServer, TestServer];
      const { token } = await a.registerTenant();
      const created = await a.call('POST', '/api/v1/collections', token, {
        name,
        vectors: { v: { dimensions: dims, distance: 'cosine' } },
        indexes: { 'metadata.tag': 'keyword', 'metadata.price': 'float' },
      });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      // Above the size a space is scanned whole (exactBelow, 2,000): the planner's choice is the indexes'.
      for (let from = 0; from < total; from += 500) {
        const node = from % 1000 === 0 ? a : b;
        const res = await node.call(
          'POST',
          '/api/v1/documents/batch',
          token,
          documents(from, Math.min(total, from + 500)),
        );
        assert.equal(res.status, 200, JSON.stringify(res.body).slice(0, 300));
      }
      await cluster.settle();
      for (const node of cluster.nodes) await indexesReady(node, token);

      // The lease holder takes a snapshot of what every node applied; a follower is then wiped.
      await Promise.all(cluster.nodes.map((n) => n.clusterDuties!.progress.report()));
      await holder()!.clusterDuties!.check();
      const latest = (await holder()!.clusterDuties!.snapshots!.verified())[0];
      assert.ok(latest, 'a verified cluster snapshot');
      const wiped = cluster.nameOf(cluster.nodes.find((n) => n !== holder())!);
      await cluster.stop(wiped);
      cluster.wipe(wiped);
      // Writes while it is away come after the snapshot: the node replays them (and indexes them) from the log.
      const reference = holder()!;
      const away = await reference.call('POST', '/api/v1/documents/batch', token, documents(total, total + 40));
      assert.equal(away.status, 200, JSON.stringify(away.body).slice(0, 300));
      const gone = await reference.call('DELETE', '/api/v1/documents/p-4', token);
      assert.equal(gone.status, 200, JSON.stringify(gone.body));

      const restored = await cluster.start(wiped);
      const readyz = (await restored.call('GET', '/readyz')).body as { cluster: { restored_snapshot?: unknown } };
      assert.deepEqual(readyz.cluster.restored_snapshot, { id: latest.id, seq: latest.seq });
      await cluster.settle();
      await indexesReady(restored, token);
      assert.deepEqual(await indexesOf(restored, token), await indexesOf(reference, token));
      assert.equal((await indexesOf(restored, token))!['metadata.price']!.documents, total + 40 - 1);

      // Selective filters (a few hundred of the documents, bounded by their postings): sets made from the indexes.
      const filterSets: unknown[] = [
        [{ field: 'metadata.tag', operator: 'eq', value: 'red' }],
        [
          { field: 'metadata.price', operator: 'gte', value: 40 },
          { field: 'metadata.price', operator: 'lt', value: 55 },
        ],
        {
          should: [
            { field: 'metadata.tag', operator: 'in', value: ['green'] },
            { must: [{ field: 'metadata.price', operator: 'gte', value: 95 }] },
          ],
        },
      ];
      const same = (got: Result[], want: Result[], what: string) => {
        assert.deepEqual(
          got.map((r) => r.document_id),
          want.map((r) => r.document_id),
          what,
        );
        got.forEach((r, k) => assert.ok(Math.abs(r.score - want[k]!.score) <= 1e-6, `${what}: scores`));
      };
      const ask = async (node: TestServer, path: string, body: Record<string, unknown>) => {
        const res = await node.call('POST', path, token, { ...body, primary_table: name, explain: true });
        assert.equal(res.status, 200, `${path} ${JSON.stringify(res.body)}`);
        return { results: res.body.results as Result[], plan: res.body.plan as Plan };
      };
      // A node loads its in-memory BM25 index and vector copies in the background, after a start or writes (FTS5
      // and checked candidates answer meanwhile, with the same results): once loaded, its plans are the indexes'.
      const probes = {
        '/api/v1/search/vector': { vector: vectorOf(), limit: 10, threshold: 0, filters: filterSets[0] },
        '/api/v1/search/text': { query: 'shock', query_type: 'match', limit: 20, filters: filterSets[0] },
      };
      for (const [path, probe] of Object.entries(probes)) {
        for (const node of [restored, reference]) {
          await until(
            async () => (await ask(node, path, probe)).plan.filter === 'index',
            `${path} on node ${cluster.nameOf(node)} plans from the indexes`,
            { boundMs: 30_000 },
          );
        }
      }
      for (const filters of filterSets) {
        const what = JSON.stringify(filters);
        const q = vectorOf();
        const vector = { vector: q, limit: 10, threshold: 0, filters };
        const [mine, theirs] = [
          await ask(restored, '/api/v1/search/vector', vector),
          await ask(reference, '/api/v1/search/vector', vector),
        ];
        assert.ok(theirs.results.length > 0, what);
        same(mine.results, theirs.results, `vector ${what}`);
        assert.deepEqual(mine.plan, theirs.plan, `vector ${what}`);
        assert.equal(mine.plan.filter, 'index', `vector ${what}: ${JSON.stringify(mine.plan)}`);
        assert.equal(mine.plan.path, 'allowed-exact');

        const text = { query: 'shock wave', query_type: 'match', limit: 20, filters };
        const [mineText, theirText] = [
          await ask(restored, '/api/v1/search/text', text),
          await ask(reference, '/api/v1/search/text', text),
        ];
        assert.ok(theirText.results.length > 0, what);
        same(mineText.results, theirText.results, `text ${what}`);
        assert.deepEqual(mineText.plan, theirText.plan, `text ${what}`);
        assert.equal(mineText.plan.filter, 'index', `text ${what}: ${JSON.stringify(mineText.plan)}`);
        assert.equal(mineText.plan.path, 'text-allowed');

        const counts = await Promise.all(
          [restored, reference].map(async (node) => {
            const res = await node.call('POST', '/api/v1/documents/count', token, {
              primary_table: name,
              filter: filters,
            });
            assert.equal(res.status, 200, JSON.stringify(res.body));
            return res.body.count as number;
          }),
        );
        assert.equal(counts[0], counts[1], `count ${what}`);
        assert.equal(counts[0], mine.plan.allowed, `count ${what} is the allowed set's size`);
      }
    },
  );
});
