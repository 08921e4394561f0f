import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { openTestEngine, type TestEngine } from '../../test-support/engine.js';
import { lowRankVectors, nearestIds, writeVectors } from '../../test-support/vectors.js';
import { IndexTail, Nearest } from './index-tail.js';
import { sliceSize } from './tail-indexing.js';
import { sliceBounds, sliceBudgetMs, tailPerSlice } from './vector-index-options.js';

// Issue #16 (import rate): writes are answered once stored, and their vectors join the HNSW graph in the
// background. Until they do, searches compare them exactly, so nothing written is ever missing from a result.

const viewer = { tenantId: '00000000-0000-4000-8000-0000000000b7', userId: 'owner', groups: [] as string[] };
const dims = 512;
const model = 'use-lite-512';

const write = (engine: TestEngine, vectors: Float32Array[], from: number) =>
  writeVectors(engine, viewer, vectors, from);

const top = (engine: TestEngine, vector: Float32Array) => nearestIds(engine, viewer, vector);

/** Lets the event loop turn until the background indexing has nothing left (a hang detector, not a timing). */
async function indexed(engine: TestEngine): Promise<void> {
  for (let turn = 0; turn < 10_000 && engine.vectors.lag() > 0; turn += 1)
    await new Promise((resolve) => setImmediate(resolve));
  assert.equal(engine.vectors.lag(), 0, 'the background indexing finished');
}

describe('vectors written during an import (issue #16)', () => {
  it('are found by every search before they are in the HNSW graph, then by the graph', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'godb-index-tail-'));
    const engine = openTestEngine(dir, model);
    try {
      const vectors = lowRankVectors(2600, 21);
      const release = engine.documents.deferIndexing();
      write(engine, vectors.slice(0, 1300), 0);
      write(engine, vectors.slice(1300), 1300);
      assert.equal(engine.vectors.lag(), 2600, 'answered before any HNSW insertion');
      const stats = engine.vectors.stats(viewer.tenantId, model, dims);
      assert.deepEqual({ size: stats.size, indexed: stats.indexed }, { size: 2600, indexed: 0 });
      for (const n of [0, 5, 1299, 1300, 2222, 2599]) assert.equal((await top(engine, vectors[n]!))[0], `v${n}`);
      // A document replaced or deleted while waiting leaves the results like any other.
      write(engine, [vectors[7]!.map((x) => -x)], 7);
      await engine.commands.delete(viewer, 'v8', { recursive: false, permanent: false });
      assert.notEqual((await top(engine, vectors[7]!))[0], 'v7');
      assert.ok(!(await top(engine, vectors[8]!)).includes('v8'));
      release();
      await indexed(engine);
      const after = engine.vectors.stats(viewer.tenantId, model, dims);
      assert.deepEqual({ size: after.size, indexed: after.indexed }, { size: 2599, indexed: 2599 });
      for (const n of [0, 5, 1299, 1300, 2222, 2599]) assert.equal((await top(engine, vectors[n]!))[0], `v${n}`);
      assert.ok(!(await top(engine, vectors[8]!)).includes('v8'));
    } finally {
      await engine.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('are caught up from the store after a shutdown that did not wait for a long tail; a checkpoint records only what the graph holds', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'godb-index-tail-save-'));
    const meta = () =>
      JSON.parse(
        readFileSync(join(dir, 'vectors', encodeURIComponent(viewer.tenantId), `${model}.meta.json`), 'utf8'),
      ) as { generation: number; through: number; count: number };
    const engine = openTestEngine(dir, model, {
      clock: { now: () => 0 },
      checkpoint: { writes: 1000, intervalMs: 60_000 },
    });
    const vectors = lowRankVectors(7000, 22);
    let lag = 0;
    try {
      write(engine, vectors.slice(0, 2100), 0);
      await indexed(engine);
      assert.equal(engine.vectors.checkpoint(), 1, '2,100 vectors indexed since the start');
      const saved = meta();
      const release = engine.documents.deferIndexing();
      write(engine, vectors.slice(2100), 2100); // 4,900 waiting: more than a checkpoint indexes first
      assert.equal(engine.vectors.checkpoint(), 0, 'the graph did not change');
      assert.deepEqual(meta(), saved, 'the file still says what the graph holds');
      release();
      await new Promise((resolve) => setImmediate(resolve)); // one slice of background indexing
      assert.ok(engine.vectors.lag() > 0 && engine.vectors.lag() < 4900);
      assert.equal(engine.vectors.checkpoint(), 0, 'a long tail is not a reason to save the graph again');
      lag = engine.vectors.lag();
    } finally {
      await engine.close();
    }
    // Shutdown saved the graph as it was (draining thousands of vectors would have held every request meanwhile):
    // the file says so, and the next start adds the rest from the store.
    assert.ok(lag > 4096, `${lag} waiting at shutdown: more than a save indexes first`);
    assert.equal(meta().count, 7000 - lag, 'the file holds what the graph held');
    const reopened = openTestEngine(dir, model);
    try {
      assert.equal((await top(reopened, vectors[6543]!))[0], 'v6543');
      assert.deepEqual(reopened.vectors.counters().opened, { file: 0, replay: 1, rebuild: 0 }, 'caught up');
      assert.equal(reopened.vectors.size(viewer.tenantId, model, dims), 7000, 'every acknowledged write');
      for (const n of [0, 2100, 4000, 6999]) assert.equal((await top(reopened, vectors[n]!))[0], `v${n}`);
    } finally {
      await reopened.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('IndexTail', () => {
  it('hands out live keys in order and says which generation the graph then reflects', () => {
    const tail = new IndexTail();
    tail.push([1, 2, 3], 10);
    tail.push([4, 5], 11);
    tail.remove([2, 99], 12);
    assert.equal(tail.size, 4);
    assert.deepEqual(tail.take(2), { keys: [1, 3], through: 3, generation: 10 });
    assert.deepEqual([...tail.live()], [4, 5]);
    assert.deepEqual(tail.take(10), { keys: [4, 5], through: 5, generation: 12 });
    assert.equal(tail.size, 0);
  });

  it('keeps the k nearest of any number of candidates', () => {
    const nearest = new Nearest(3);
    [5, 1, 9, 3, 7, 0.5, 8].forEach((d, i) => nearest.offer(i, d));
    assert.deepEqual(nearest.result(), { keys: [5, 1, 3], distances: [0.5, 1, 3] });
  });
});

describe('the size of a slice of background indexing', () => {
  it('fits the last measured insertion time into the budget, within bounds', () => {
    assert.equal(sliceSize({}), tailPerSlice, 'before any slice is timed');
    assert.equal(sliceSize({ insertMs: sliceBudgetMs / 100 }), 100, 'a small graph: many per slice');
    assert.equal(sliceSize({ insertMs: sliceBudgetMs / 10 }), 10, 'a graph ten times slower: a tenth as many');
    assert.equal(sliceSize({ insertMs: sliceBudgetMs * 4 }), sliceBounds.min, 'always some progress');
    assert.equal(sliceSize({ insertMs: 0 }), sliceBounds.max, 'never unbounded');
  });
});
