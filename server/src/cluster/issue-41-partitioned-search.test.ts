import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { call, startPartitionedPair, writeBoth, type PartitionedPair } from '../test-support/partitioned-pair.js';

/**
 * Issue #41, the searches of a partitioned collection beyond vector search (decision 0076), on a real three-node
 * cluster (three nats-server processes), `shards: 6, replication_factor: 2`, against one embedded node holding the
 * same documents: text search ranks with the collection's statistics summed over its shards (dfs), so the ids,
 * order and scores are the embedded node's through every node.
 */
const common = ['shock', 'wave', 'boundary', 'layer', 'turbulent', 'flow', 'heat', 'transfer', 'laminar', 'jet'];
/** A vocabulary whose first words are common and the rest rare (a skewed draw), so idf differs between words. */
const words = [...common, ...Array.from({ length: 70 }, (_, i) => `term${i}`)];
/** Words of document i: a length of its own (5 + i / 2 words, so few tie), drawn by a small LCG seeded by i. */
const textOf = (i: number) => {
  let x = (i * 7919 + 13) % 2147483647;
  const out: string[] = [];
  for (let k = 0; k < 5 + Math.floor(i / 2); k += 1) {
    x = (x * 48271) % 2147483647;
    const u = x / 2147483647;
    out.push(words[Math.floor(words.length * u * u * u)]!);
  }
  return out.join(' ');
};
const papers = Array.from({ length: 60 }, (_, i) => ({
  id: `paper-${i}`,
  title: `Paper ${i}`,
  content: textOf(i),
  primary_table: 'papers',
  // A private document is scored but counted in no statistic: the shards must agree on that too.
  ...(i % 9 === 4 && { visibility: 'private' }),
}));
/** A collection that is not partitioned (on every node): its text counts in the tenant's statistics. */
const notes = Array.from({ length: 8 }, (_, i) => ({
  id: `note-${i}`,
  title: `Note ${i}`,
  content: textOf(i + 3),
  primary_table: 'notes',
}));

type Hit = { document_id: string; score: number };

describe('searches of a partitioned collection in a three-node cluster (issue #41)', () => {
  let pair: PartitionedPair;
  before(async () => {
    pair = await startPartitionedPair('psearch');
    await writeBoth(pair, { name: 'papers' }, { shards: 6, replication_factor: 2 }, papers, 2);
    await writeBoth(pair, { name: 'notes' }, {}, notes, 3);
  });
  after(async () => {
    await pair?.close();
  });

  /** Asks every node of the cluster and the embedded node; every node answers the embedded node's ranking. */
  const sameAsOneNode = async (url: string, query: object) => {
    const reference = await call(pair.single, 'POST', url, pair.alone.token, query);
    assert.equal(reference.status, 200, reference.raw);
    const expected = reference.body.results as Hit[];
    for (const node of pair.nodes) {
      const res = await call(node, 'POST', url, pair.tenant.token, query);
      assert.equal(res.status, 200, res.raw);
      const hits = res.body.results as Hit[];
      assert.deepEqual(
        hits.map((h) => h.document_id),
        expected.map((h) => h.document_id),
        `through ${pair.cluster.nameOf(node)}: ${JSON.stringify(query)}`,
      );
      hits.forEach((h, i) =>
        assert.ok(Math.abs(h.score - expected[i]!.score) < 1e-6, `${h.score} vs ${expected[i]!.score}`),
      );
    }
    return expected;
  };

  test('text search (match and phrase) answers the ids, order and scores of one node holding everything', async () => {
    for (const query of ['term10', 'term15 term30 term40', 'laminar term12 term25 term50']) {
      const expected = await sameAsOneNode('/api/v1/search/text', {
        query,
        query_type: 'match',
        primary_table: 'papers',
        limit: 10,
      });
      assert.ok(expected.length >= 5, `${query}: ${expected.length} hits`);
    }
    const phrase = await sameAsOneNode('/api/v1/search/text', {
      query: 'shock wave',
      query_type: 'phrase',
      primary_table: 'papers',
      limit: 5,
    });
    assert.ok(phrase.length > 0);
  });

  test('a kind not fanned out yet answers 501 naming it', async () => {
    const res = await call(pair.nodes[0]!, 'POST', '/api/v1/search/text', pair.tenant.token, {
      query: 'sho*',
      query_type: 'wildcard',
      primary_table: 'papers',
    });
    assert.equal(res.status, 501, res.raw);
    assert.match(res.raw, /wildcard on the partitioned collection papers/);
  });
});
