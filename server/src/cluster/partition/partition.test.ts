import assert from 'node:assert/strict';
import { test } from 'node:test';
import { idf, lengthNorm } from '../../engine/text/bm25-score.js';
import { collectionShardKey, documentShard } from './document-shard.js';
import { mergeTopK, sumTermStats, type ShardTermStats } from './merge-top-k.js';
import { placeCollection, replicasOf } from './rendezvous.js';
import { maxCollectionShards, shardSettings } from './shard-settings.js';

const nodes = ['node-1', 'node-2', 'node-3', 'node-4', 'node-5'];

const fieldOf = (fn: () => unknown): unknown => {
  try {
    fn();
  } catch (error) {
    return (
      (error as { details?: { field?: string }; field?: string }).details?.field ?? (error as { field?: string }).field
    );
  }
  return undefined;
};

test('a document falls on one shard of its collection, the same every time, spread over all shards', () => {
  const counts = new Array<number>(6).fill(0);
  for (let i = 0; i < 6000; i++) counts[documentShard('docs', `doc-${i}`, 6)]! += 1;
  assert.equal(documentShard('docs', 'doc-1', 6), documentShard('docs', 'doc-1', 6));
  for (const n of counts) assert.ok(n > 800 && n < 1200, `shard sizes ${counts.join(', ')}`);
});

test('5 nodes, 6 shards, replication 3: each node holds about 3/5 of the shards, none holds all', () => {
  const held = new Map(nodes.map((n) => [n, 0]));
  const docsHeld = new Map(nodes.map((n) => [n, 0]));
  const replicas = placeCollection('docs', 6, nodes, 3);
  for (const r of replicas) {
    assert.equal(new Set(r).size, 3);
    for (const n of r) held.set(n, held.get(n)! + 1);
  }
  for (let i = 0; i < 3000; i++) {
    for (const n of replicas[documentShard('docs', `doc-${i}`, 6)]!) docsHeld.set(n, docsHeld.get(n)! + 1);
  }
  for (const [node, share] of docsHeld) {
    assert.ok(held.get(node)! === 3 || held.get(node)! === 4, `${node} holds ${held.get(node)} shards`);
    assert.ok(share / 3000 > 0.4 && share / 3000 < 0.8, `${node} holds ${share} of 3000 documents`);
  }
  assert.equal(
    [...held.values()].reduce((a, b) => a + b, 0),
    18,
  );
});

test('placement is the same whatever order the nodes are listed in, and all nodes when fewer than rf', () => {
  const key = collectionShardKey('docs', 2);
  assert.deepEqual(replicasOf(key, nodes, 3), replicasOf(key, [...nodes].reverse(), 3));
  assert.deepEqual(replicasOf(key, ['a', 'b'], 3).sort(), ['a', 'b']);
});

test('a node joining takes replicas only from the shards it wins; the others stay where they are', () => {
  const before = Array.from({ length: 64 }, (_, s) => replicasOf(`c/${s}`, nodes, 3));
  const after = Array.from({ length: 64 }, (_, s) => replicasOf(`c/${s}`, [...nodes, 'node-6'], 3));
  let moved = 0;
  for (let s = 0; s < 64; s++) {
    const gone = before[s]!.filter((n) => !after[s]!.includes(n));
    if (after[s]!.includes('node-6')) assert.equal(gone.length, 1);
    else assert.deepEqual(after[s], before[s]);
    moved += gone.length;
  }
  // About rf / n = 3/6 of the shards gain the new node.
  assert.ok(moved > 16 && moved < 48, `moved ${moved} of 64`);
});

test('shard settings: defaults, the stated maximum, rf above the node count, a change of shard count', () => {
  assert.deepEqual(shardSettings({}, { defaultShards: 4, nodes: 5 }), { shards: 4, replicationFactor: 3 });
  assert.deepEqual(shardSettings({ shards: 6 }, { defaultShards: 1, nodes: 2 }), { shards: 6, replicationFactor: 2 });
  assert.equal(
    fieldOf(() => shardSettings({ shards: maxCollectionShards + 1 }, { defaultShards: 1, nodes: 3 })),
    'body.shards',
  );
  assert.equal(
    fieldOf(() => shardSettings({ shards: 0 }, { defaultShards: 1, nodes: 3 })),
    'body.shards',
  );
  assert.equal(
    fieldOf(() => shardSettings({ shards: '6' }, { defaultShards: 1, nodes: 3 })),
    'body.shards',
  );
  assert.equal(
    fieldOf(() => shardSettings({ replication_factor: 4 }, { defaultShards: 1, nodes: 3 })),
    'body.replication_factor',
  );
});

test('the merged top-k of shards equals the top-k of all hits, ties by id', () => {
  const all = Array.from({ length: 200 }, (_, i) => ({ id: `d${i}`, score: Math.round(Math.sin(i) * 50) / 50 }));
  const perShard = [0, 1, 2].map((s) => all.filter((h) => documentShard('c', h.id, 3) === s));
  const topOfEach = perShard.map((hits) => mergeTopK([hits], 10));
  assert.deepEqual(mergeTopK(topOfEach, 10), mergeTopK([all], 10));
});

test('summed shard statistics give the idf and length norm of one node holding everything', () => {
  const shards: ShardTermStats[] = [
    { chunks: 40, tokens: 900, df: { vector: 5, search: 2 } },
    { chunks: 25, tokens: 610, df: { vector: 1 } },
    { chunks: 35, tokens: 700, df: { search: 9 } },
  ];
  const whole = { chunks: 100, tokens: 2210, df: { vector: 6, search: 11 } };
  const summed = sumTermStats(shards);
  // The sums are prototype-less (a term may be "constructor"): compared by their entries.
  assert.deepEqual({ ...summed, df: { ...summed.df } }, whole);
  assert.equal(idf(summed, summed.df.vector!), idf(whole, 6));
  assert.equal(lengthNorm(summed, 17), lengthNorm(whole, 17));
});

test('bounded placement keeps every node within one replica of its share, for many collections', () => {
  for (let c = 0; c < 200; c++) {
    const load = new Map<string, number>();
    for (const r of placeCollection(`col-${c}`, 6, nodes, 3)) {
      assert.equal(new Set(r).size, 3);
      for (const n of r) load.set(n, (load.get(n) ?? 0) + 1);
    }
    for (const n of nodes) assert.ok([3, 4].includes(load.get(n) ?? 0), `col-${c}: ${[...load].join(' ')}`);
  }
});
