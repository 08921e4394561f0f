// Issue #16 (restart without full rebuilds, bounded memory): vector indexes are checkpointed by the engine's clock,
// a restart after a crash loads the last checkpoint and replays only the writes after it (inserts, replacements,
// soft deletes and purges), a query that cannot wait answers 503 INDEX_LOADING rather than an empty result, and
// indexes beyond their memory budget leave memory and come back from their files with the same answers.
import assert from 'node:assert/strict';
import {
  closeSync,
  existsSync,
  mkdtempSync,
  openSync,
  readFileSync,
  readSync,
  rmSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import Database from 'better-sqlite3';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { openTestEngine, type TestEngine } from '../../test-support/engine.js';
import { lowRankVectors, nearestIds, writeVectors } from '../../test-support/vectors.js';
import type { Viewer } from '../documents/types.js';

const tenantA = '00000000-0000-4000-8000-0000000000b1';
const tenantB = '00000000-0000-4000-8000-0000000000b2';
const viewerOf = (tenantId: string): Viewer => ({ tenantId, userId: 'owner', groups: [] });
const dims = 512;
const model = 'use-lite-512';

/** Documents `v<from + i>` with the given unit vectors, written through the engine with precomputed embeddings. */
const write = (engine: TestEngine, vectors: Float32Array[], from: number, tenantId = tenantA) =>
  writeVectors(engine, viewerOf(tenantId), vectors, from);

const top = (engine: TestEngine, vector: Float32Array, tenantId = tenantA) =>
  nearestIds(engine, viewerOf(tenantId), vector);

/** The end of a process killed with SIGKILL, as far as the engine can tell: nothing saved, the store closed. */
async function crash(engine: TestEngine): Promise<void> {
  engine.vectors.close();
  engine.db.close();
  await engine.embedder.close();
}

const metaOf = (dir: string, tenantId = tenantA) =>
  JSON.parse(readFileSync(join(dir, 'vectors', encodeURIComponent(tenantId), `${model}.meta.json`), 'utf8')) as {
    generation: number;
    through: number;
  };

const logRows = (engine: TestEngine) =>
  engine.db.prepare('SELECT count(*) FROM vector_removals WHERE tenant_id = ?').pluck().get(tenantA) as number;

describe('checkpoints of a vector index', () => {
  it('are taken by the clock (N changes or T ms) and prune the removal log', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'godb-checkpoint-'));
    let now = 1_000_000;
    const engine = openTestEngine(dir, model, {
      clock: { now: () => now },
      checkpoint: { writes: 100, intervalMs: 60_000 },
    });
    try {
      const vectors = lowRankVectors(2100, 11);
      write(engine, vectors.slice(0, 2050), 0);
      engine.vectors.size(tenantA, model, dims); // in memory (the build the write started, finished)
      assert.equal(engine.vectors.checkpoint(), 1, '2,050 changed vectors ≥ 100: due at once');
      assert.equal(engine.vectors.checkpoint(), 0, 'nothing changed since');
      const saved = metaOf(dir);
      await engine.commands.delete(viewerOf(tenantA), 'v1', { recursive: false, permanent: false });
      write(engine, vectors.slice(2050, 2060), 2050);
      assert.equal(logRows(engine), 1, 'the delete is in the removal log');
      assert.equal(engine.vectors.checkpoint(), 0, '11 changes, and less than 60 s since the last save');
      now += 60_000;
      assert.equal(engine.vectors.checkpoint(), 1, 'due by time');
      const meta = metaOf(dir);
      assert.ok(meta.generation > saved.generation);
      assert.ok(meta.through > saved.through, 'the file records the highest vector seq it holds');
      assert.equal(logRows(engine), 0, 'the log up to the checkpoint is pruned');
    } finally {
      await engine.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('a restart after a crash', () => {
  it('loads the last checkpoint and replays the writes after it, instead of rebuilding', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'godb-replay-'));
    const vectors = lowRankVectors(2500, 12);
    const crashed = openTestEngine(dir, model);
    write(crashed, vectors.slice(0, 2100), 0);
    crashed.vectors.size(tenantA, model, dims);
    crashed.vectors.saveAll(); // the last checkpoint
    // After it: new documents, a replaced one, a hidden one, a purged one, an added-then-purged one.
    write(crashed, vectors.slice(2100, 2400), 2100);
    write(crashed, [vectors[2450]!], 10); // v10 now has another vector
    await crashed.commands.delete(viewerOf(tenantA), 'v20', { recursive: false, permanent: false });
    await crashed.commands.delete(viewerOf(tenantA), 'v30', { recursive: false, permanent: true });
    await crashed.commands.delete(viewerOf(tenantA), 'v2300', { recursive: false, permanent: true });
    await crash(crashed);

    const engine = openTestEngine(dir, model);
    try {
      await engine.vectors.ready(tenantA, model, dims);
      assert.deepEqual(engine.vectors.counters().opened, { file: 0, replay: 1, rebuild: 0 }, 'replayed, not rebuilt');
      assert.equal(engine.vectors.size(tenantA, model, dims), 2100 + 300 - 3, 'every acknowledged write, no more');
      assert.equal((await top(engine, vectors[2200]!))[0], 'v2200', 'inserted after the checkpoint');
      assert.equal((await top(engine, vectors[2450]!))[0], 'v10', 'replaced after the checkpoint');
      assert.ok(!(await top(engine, vectors[10]!)).includes('v10'), 'its old vector is gone');
      for (const gone of [20, 30, 2300]) assert.ok(!(await top(engine, vectors[gone]!)).includes(`v${gone}`));
      assert.equal((await top(engine, vectors[5]!))[0], 'v5', 'from the checkpoint');
    } finally {
      await engine.close();
    }
    // Closed cleanly: the next start loads the file as is.
    const again = openTestEngine(dir, model);
    try {
      await again.vectors.ready(tenantA, model, dims);
      assert.deepEqual(again.vectors.counters().opened, { file: 1, replay: 0, rebuild: 0 });
      assert.equal(again.vectors.size(tenantA, model, dims), 2397);
    } finally {
      await again.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('answers INDEX_LOADING (503) with the progress to a query that cannot wait, never an empty result', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'godb-index-loading-'));
    const vectors = lowRankVectors(2400, 13);
    const crashed = openTestEngine(dir, model);
    write(crashed, vectors.slice(0, 2100), 0);
    crashed.vectors.size(tenantA, model, dims);
    crashed.vectors.saveAll();
    write(crashed, vectors.slice(2100), 2100);
    await crash(crashed);
    // The wait is over at once: the catch-up has not had a turn of the event loop yet.
    const engine = openTestEngine(dir, model, { indexWait: () => Promise.resolve() });
    try {
      await assert.rejects(top(engine, vectors[2200]!), (error: { code: string; status: number; message: string }) => {
        assert.equal(error.code, 'INDEX_LOADING');
        assert.equal(error.status, 503);
        assert.match(error.message, /catching up from its last checkpoint \(0 of 300 vectors read\)/);
        return true;
      });
      assert.deepEqual(engine.vectors.loading(), [{ space: model, how: 'replay', done: 0, total: 300 }]);
      let hits: string[] | undefined;
      while (!hits) {
        await new Promise((resolve) => setImmediate(resolve)); // a turn for the catch-up
        hits = await top(engine, vectors[2200]!).catch(() => undefined);
      }
      assert.equal(hits[0], 'v2200');
      assert.deepEqual(engine.vectors.loading(), []);
    } finally {
      await engine.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('never loads an index file whose bytes changed on disk: it is counted unreadable, removed and rebuilt', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'godb-index-checksum-'));
    const vectors = lowRankVectors(2200, 15);
    const saved = openTestEngine(dir, model);
    write(saved, vectors, 0);
    saved.vectors.size(tenantA, model, dims);
    await saved.close(); // saved cleanly: the file is current
    const base = join(dir, 'vectors', encodeURIComponent(tenantA), model);
    const meta = JSON.parse(readFileSync(`${base}.meta.json`, 'utf8')) as { bytes: number; crc32: number };
    assert.ok(meta.bytes > 0 && Number.isInteger(meta.crc32), 'the metadata records the length and CRC-32');
    // One bit flipped in the middle of the graph: same length, every other byte as saved.
    const fd = openSync(`${base}.usearch`, 'r+');
    const byte = Buffer.alloc(1);
    const at = Math.floor(meta.bytes / 2);
    readSync(fd, byte, 0, 1, at);
    byte[0] = byte[0]! ^ 0x10;
    writeSync(fd, byte, 0, 1, at);
    closeSync(fd);

    const engine = openTestEngine(dir, model);
    try {
      await engine.vectors.ready(tenantA, model, dims);
      const counters = engine.vectors.counters();
      assert.equal(counters.unreadable, 1);
      assert.deepEqual(counters.opened, { file: 0, replay: 0, rebuild: 1 }, 'built from the store, not loaded');
      assert.equal(engine.vectors.size(tenantA, model, dims), 2200);
      for (const i of [0, 700, 2199]) assert.equal((await top(engine, vectors[i]!))[0], `v${i}`);
    } finally {
      await engine.close();
    }
    assert.ok(existsSync(`${base}.usearch`), 'saved again at close');
    const again = openTestEngine(dir, model);
    try {
      await again.vectors.ready(tenantA, model, dims);
      assert.deepEqual(again.vectors.counters().opened, { file: 1, replay: 0, rebuild: 0 });
      assert.equal(again.vectors.counters().unreadable, 0);
    } finally {
      await again.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('replays the file a save renamed into place when a crash kept it from writing the metadata', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'godb-index-next-'));
    const vectors = lowRankVectors(2300, 16);
    const saved = openTestEngine(dir, model);
    write(saved, vectors.slice(0, 2100), 0);
    saved.vectors.size(tenantA, model, dims);
    saved.vectors.saveAll();
    const base = join(dir, 'vectors', encodeURIComponent(tenantA), model);
    const older = JSON.parse(readFileSync(`${base}.meta.json`, 'utf8')) as { generation: number };
    write(saved, vectors.slice(2100), 2100);
    saved.vectors.saveAll();
    const newer = JSON.parse(readFileSync(`${base}.meta.json`, 'utf8')) as { bytes: number; crc32: number };
    await crash(saved);
    // What a crash between the index's rename and its metadata's leaves: the newer file beside the older metadata,
    // which a save writes with the newer file's check as `next` before the rename, and the removal log not yet
    // pruned (the prune comes after the metadata).
    writeFileSync(`${base}.meta.json`, JSON.stringify({ ...older, next: { bytes: newer.bytes, crc32: newer.crc32 } }));
    const db = new Database(join(dir, 'godb.sqlite'));
    db.prepare('UPDATE vector_generations SET logged_from = ? WHERE tenant_id = ?').run(older.generation, tenantA);
    db.close();

    const engine = openTestEngine(dir, model);
    try {
      await engine.vectors.ready(tenantA, model, dims);
      assert.equal(engine.vectors.counters().unreadable, 0, 'the file beside the metadata passes its check');
      assert.deepEqual(engine.vectors.counters().opened, { file: 0, replay: 1, rebuild: 0 });
      assert.equal(engine.vectors.size(tenantA, model, dims), 2300);
      assert.equal((await top(engine, vectors[2200]!))[0], 'v2200');
      const meta = JSON.parse(readFileSync(`${base}.meta.json`, 'utf8')) as Record<string, unknown>;
      assert.deepEqual(
        [meta.generation, meta.bytes, meta.crc32, meta.next],
        [older.generation, newer.bytes, newer.crc32, undefined],
        'the metadata names the file that is there, still at the older generation',
      );
    } finally {
      await engine.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('rebuilds an index whose file the removal log no longer covers', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'godb-replay-uncovered-'));
    const vectors = lowRankVectors(2200, 14);
    const crashed = openTestEngine(dir, model);
    write(crashed, vectors.slice(0, 2100), 0);
    crashed.vectors.size(tenantA, model, dims);
    crashed.vectors.saveAll();
    await crashed.commands.delete(viewerOf(tenantA), 'v3', { recursive: false, permanent: true });
    // As in a data folder from before the log existed (migration 10 starts it at the current generation).
    crashed.db.prepare('UPDATE vector_generations SET logged_from = generation').run();
    await crash(crashed);
    const engine = openTestEngine(dir, model);
    try {
      await engine.vectors.ready(tenantA, model, dims);
      assert.deepEqual(engine.vectors.counters().opened, { file: 0, replay: 0, rebuild: 1 });
      assert.equal(engine.vectors.size(tenantA, model, dims), 2099);
    } finally {
      await engine.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the vector index memory budget', () => {
  it('evicts the least recently used index, which comes back from its file with the same answers', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'godb-index-budget-'));
    // One index of 2,100 × 512-d f16 vectors is about 2.5 MB: the budget holds one, not two.
    const engine = openTestEngine(dir, model, { vectorIndexBytes: 3 * 1024 * 1024 });
    try {
      const a = lowRankVectors(2100, 15);
      const b = lowRankVectors(2100, 16);
      write(engine, a, 0, tenantA);
      assert.equal((await top(engine, a[7]!, tenantA))[0], 'v7');
      // Compared once the graph holds every vector: until then the newest are searched exactly in the index's tail,
      // and the graph (approximate) may order the third or fourth nearest differently after it takes them.
      for (let turn = 0; turn < 100_000 && engine.vectors.lag() > 0; turn += 1)
        await new Promise((resolve) => setImmediate(resolve));
      const before = await top(engine, a[99]!, tenantA);
      write(engine, b, 0, tenantB);
      assert.equal((await top(engine, b[8]!, tenantB))[0], 'v8');
      assert.equal(engine.vectors.counters().evictions, 1, 'tenant A left memory');
      assert.equal(engine.vectors.stats(tenantA, model, dims).state, 'not loaded');
      const memory = engine.vectors.memory();
      assert.ok(memory.indexBytes <= memory.indexBudget, 'within the budget');
      assert.deepEqual(await top(engine, a[99]!, tenantA), before, 'same answers after coming back');
      assert.equal(engine.vectors.counters().opened.file, 1, 'from its file, not rebuilt');
      assert.equal(engine.vectors.counters().evictions, 2, 'then tenant B left');
      write(engine, [b[0]!.map((x) => -x)], 5000, tenantB); // a write to an evicted index loads it first
      assert.equal(
        (
          await top(
            engine,
            b[0]!.map((x) => -x),
            tenantB,
          )
        )[0],
        'v5000',
      );
      assert.equal(engine.vectors.size(tenantB, model, dims), 2101);
    } finally {
      await engine.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
