import assert from 'node:assert/strict';
import { test } from 'node:test';
import { collectionId, type PlacementRecord } from './placement-records.js';
import { placeCollection } from './rendezvous.js';
import { nextPlacement, promoted } from './shard-moves.js';

const five = ['n1', 'n2', 'n3', 'n4', 'n5'];

const recordOn = (nodes: string[]): PlacementRecord => ({
  tenantId: 't',
  name: 'papers',
  epoch: 1,
  shards: 6,
  replicationFactor: 3,
  nodes,
  replicas: placeCollection(collectionId('t', 'papers'), 6, nodes, 3),
});

/** Runs the moves to their end as the cluster does: a step, every move catching up, again; checks each step. */
function settle(start: PlacementRecord, nodes: string[], check: (r: PlacementRecord) => void): PlacementRecord {
  let record = start;
  for (let round = 0; round < 20; round += 1) {
    const next = nextPlacement(record, nodes, 1000 + round);
    if (!next) return record;
    assert.equal(next.epoch, record.epoch + 1);
    check(next);
    record = next;
    for (const move of record.moves ?? []) {
      record = promoted(record, move.shard, move.to) ?? record;
      check(record);
    }
  }
  throw new Error('the moves did not settle in 20 rounds');
}

test('a gone node: its replicas are made again on the others, no shard ever below the live ones it had', () => {
  const start = recordOn(five);
  const live = five.filter((n) => n !== 'n3');
  const first = nextPlacement(start, live, 1000)!;
  // The gone holder stays listed until its shard has three live replicas again; each of its shards gets a move.
  const lost = start.replicas.flatMap((r, shard) => (r.includes('n3') ? [shard] : []));
  assert.ok(lost.length >= 3);
  assert.deepEqual([...new Set((first.moves ?? []).map((m) => m.shard))].sort(), lost);
  for (const move of first.moves ?? []) assert.equal(move.from === 'n3' || move.from === '', true);
  for (const shard of lost) assert.ok(first.replicas[shard]!.includes('n3'));
  const settled = settle(start, live, (r) =>
    r.replicas.forEach((replicas) => {
      const serving = replicas.filter((n) => n !== 'n3');
      assert.ok(serving.length >= 2, `a shard kept at least its two live replicas: ${JSON.stringify(r.replicas)}`);
    }),
  );
  assert.deepEqual(settled.moves, []);
  for (const replicas of settled.replicas) assert.ok(!replicas.includes('n3'));
  assert.deepEqual(
    settled.replicas.map((r) => [...r].sort()),
    placeCollection(collectionId('t', 'papers'), 6, live, 3).map((r) => [...r].sort()),
  );
  assert.equal(nextPlacement(settled, live, 2000), null, 'settled: nothing more to do');
});

test('a node joins: it takes its share, and a holder leaves a shard only once the new one serves', () => {
  const start = recordOn(five);
  const six = [...five, 'n6'];
  const settled = settle(start, six, (r) =>
    r.replicas.forEach((replicas) => assert.ok(replicas.length >= 3, JSON.stringify(r.replicas))),
  );
  const held = settled.replicas.filter((r) => r.includes('n6')).length;
  assert.ok(held >= 2 && held <= 4, `n6 holds ${held} of 18 replicas`);
  for (const r of settled.replicas) assert.equal(r.length, 3);
});

test('a move to a node that is gone since is dropped; a promotion of a move no longer there is nothing', () => {
  const start = recordOn(five);
  const six = [...five, 'n6'];
  const moving = nextPlacement(start, six, 1000)!;
  assert.ok((moving.moves ?? []).length > 0);
  const back = nextPlacement(moving, five, 1001)!;
  assert.deepEqual(back.moves, []);
  assert.deepEqual(back.replicas, start.replicas);
  assert.equal(promoted(back, moving.moves![0]!.shard, 'n6'), null);
});

test('every other node seen gone at once: no shard loses a holder, the lone node only starts copying', () => {
  const start = recordOn(five);
  const next = nextPlacement(start, ['n1'], 1000)!;
  next.replicas.forEach((replicas, shard) =>
    assert.deepEqual([...replicas].sort(), [...start.replicas[shard]!].sort(), `shard ${shard}`),
  );
  const back = nextPlacement(next, five, 1001)!;
  assert.deepEqual(back.moves, [], 'the others back: the copies to n1 are dropped');
  assert.deepEqual(
    back.replicas.map((r) => [...r].sort()),
    start.replicas.map((r) => [...r].sort()),
  );
});
