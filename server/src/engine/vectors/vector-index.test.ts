import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { openTestEngine, type TestEngine } from '../../test-support/engine.js';
import { lowRankVectors, normalised, searchNearest, writeVectors } from '../../test-support/vectors.js';
import { vectorSearch } from '../search/vector-search.js';

const viewer = { tenantId: '00000000-0000-4000-8000-0000000000a1', userId: 'owner', groups: [] as string[] };
const dims = 512;
const model = 'use-lite-512';

const open = (dataDir: string, vectorCacheBytes?: number): TestEngine =>
  openTestEngine(dataDir, model, vectorCacheBytes === undefined ? {} : { vectorCacheBytes });

/** Lets the event loop turn until the float32 copies of the test index are complete (background work). */
async function copiesFilled(engine: TestEngine): Promise<void> {
  for (let turn = 0; turn < 100 && !engine.vectors.exactVectors(viewer.tenantId, model); turn += 1)
    await new Promise((resolve) => setImmediate(resolve));
}
const cosine = (a: Float32Array, b: Float32Array) => a.reduce((sum, x, i) => sum + x * b[i]!, 0);
const searcher =
  (engine: TestEngine) =>
  (vector: Float32Array, limit = 3) =>
    searchNearest(engine, viewer, vector, limit);

const write = (engine: TestEngine, vectors: Float32Array[], from: number) =>
  writeVectors(engine, viewer, vectors, from);

describe('vector index after a crash', () => {
  it('is rebuilt in the background, in slices, keeping writes made meanwhile', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'godb-vector-index-'));
    const vectors = lowRankVectors(2600, 9);
    const crashed = open(dir);
    write(crashed, vectors, 0);
    // No close(): the index file is never saved, as after kill -9. The next start must rebuild it from the store.
    const engine = open(dir);
    try {
      const scope = { viewer, now: 1_800_000_000 };
      const search = (vector: Float32Array) =>
        vectorSearch(engine.search, engine.embedder, scope, {
          vector: Array.from(vector),
          method: 'cosine',
          threshold: -1,
          limit: 3,
        });
      let turns = 0;
      let counting = true;
      const count = () => {
        turns += 1;
        if (counting) setImmediate(count);
      };
      setImmediate(count); // another party's work, which must run between the build's slices
      const pending = search(vectors[100]!); // starts the build and waits for it
      await new Promise((resolve) => setImmediate(resolve)); // one slice built
      engine.commands.delete(viewer, 'v200', { recursive: false, permanent: true }); // already in the index
      engine.commands.delete(viewer, 'v2500', { recursive: false, permanent: false }); // not reached yet
      write(engine, [normalised(vectors[300]!.map((x, i) => (i === 0 ? x + 0.01 : x)))], 5000); // near v300, meanwhile
      const first = await pending;
      counting = false;
      assert.ok(turns > 3, 'other work ran between the slices of the build');
      assert.equal(first.exact, false);
      assert.equal(first.hits[0]?.doc.id, 'v100');
      assert.ok(Math.abs(first.hits[0]!.score - 1) < 1e-6, 'scores are exact cosines');
      assert.deepEqual(
        (await search(vectors[300]!)).hits.slice(0, 2).map((h) => h.doc.id),
        ['v300', 'v5000'],
      );
      for (const gone of [200, 2500]) {
        assert.ok(!(await search(vectors[gone]!)).hits.some((h) => h.doc.id === `v${gone}`), `v${gone} deleted`);
      }
      assert.equal(engine.vectors.size(viewer.tenantId, model, dims), 2599);
    } finally {
      await engine.close();
      await crashed.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('float32 copies for exact rescoring', () => {
  it('are filled in the background after a restart, follow writes, and score as the store does', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'godb-exact-vectors-'));
    const vectors = lowRankVectors(2600, 5);
    const first = open(dir);
    write(first, vectors, 0);
    first.vectors.size(viewer.tenantId, model, dims);
    await first.close(); // saves the index file: the next start loads it, and its copies come from the store
    const engine = open(dir);
    try {
      const search = searcher(engine);
      const before = await search(vectors[42]!);
      assert.equal(engine.vectors.exactVectors(viewer.tenantId, model), null, 'still filling: rescored from the store');
      engine.commands.delete(viewer, 'v7', { recursive: false, permanent: true });
      const written = normalised(vectors[300]!.map((x, i) => (i === 0 ? x + 0.01 : x)));
      write(engine, [written], 5000);
      await copiesFilled(engine);
      const exact = engine.vectors.exactVectors(viewer.tenantId, model);
      assert.ok(exact, 'filled');
      assert.equal(exact.size, 2600);
      const after = await search(vectors[42]!);
      assert.deepEqual(
        after.hits.map((h) => [h.doc.id, h.score]),
        before.hits.map((h) => [h.doc.id, h.score]),
      );
      for (const hit of after.hits) {
        const stored = vectors[Number(hit.doc.id.slice(1))]!;
        // The score is the model's calibrated relevance (issue #37); the similarity beside it is the exact cosine.
        assert.ok(Math.abs(hit.similarity! - cosine(vectors[42]!, stored)) < 1e-6, 'exact cosine');
      }
      assert.ok(!(await search(vectors[7]!)).hits.some((h) => h.doc.id === 'v7'), 'deleted meanwhile');
      // The vector written while the copies filled is held, exactly: found beside the one it was made from, with
      // its exact cosine. (Ten asked, not two: which of the near twins the approximate graph ranks where is its own.)
      const twins = (await search(vectors[300]!, 10)).hits;
      const v5000 = twins.find((h) => h.doc.id === 'v5000');
      assert.ok(v5000 && twins.some((h) => h.doc.id === 'v300'), twins.map((h) => h.doc.id).join());
      assert.ok(Math.abs(v5000.similarity! - cosine(vectors[300]!, written)) < 1e-6, 'the written vector, exactly');
    } finally {
      await engine.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('are dropped beyond the memory budget, and searches read the store instead', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'godb-exact-budget-'));
    const vectors = lowRankVectors(2100, 6);
    const engine = open(dir, 1024 * 1024); // 1 MiB: less than 2,100 × 2 KiB
    try {
      write(engine, vectors, 0);
      assert.equal(engine.vectors.size(viewer.tenantId, model, dims), 2100);
      assert.equal(engine.vectors.exactVectors(viewer.tenantId, model), null);
      const { hits } = await searcher(engine)(vectors[9]!);
      assert.equal(hits[0]?.doc.id, 'v9');
      assert.ok(Math.abs(hits[0]!.score - 1) < 1e-6);
    } finally {
      await engine.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('a write before any query after a restart', () => {
  it('lands in the index file loaded for it, so that file stays current and nothing is rebuilt', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'godb-vector-write-first-'));
    const vectors = lowRankVectors(2100, 7);
    const meta = () =>
      JSON.parse(
        readFileSync(join(dir, 'vectors', encodeURIComponent(viewer.tenantId), `${model}.meta.json`), 'utf8'),
      ) as { generation: number };
    const generation = (engine: TestEngine) =>
      engine.db
        .prepare('SELECT generation FROM vector_generations WHERE tenant_id = ? AND model = ?')
        .pluck()
        .get(viewer.tenantId, model) as number;
    const first = open(dir);
    write(first, vectors.slice(0, 2000), 0);
    first.vectors.size(viewer.tenantId, model, dims);
    await first.close();
    const engine = open(dir);
    try {
      write(engine, vectors.slice(2000), 2000); // no query yet: the file is loaded for the write
      engine.commands.delete(viewer, 'v5', { recursive: false, permanent: true });
      assert.equal(engine.vectors.size(viewer.tenantId, model, dims), 2099);
      // Loaded from its file, its float32 copies are still being filled in the background; a rebuild from the store
      // would have made them at once.
      assert.equal(engine.vectors.exactVectors(viewer.tenantId, model), null, 'the file was used, not rebuilt');
      const { hits } = await searcher(engine)(vectors[2050]!);
      assert.equal(hits[0]?.doc.id, 'v2050');
    } finally {
      await engine.close();
    }
    const reopened = open(dir);
    try {
      assert.equal(meta().generation, generation(reopened), 'saved at the store generation: trusted on the next start');
    } finally {
      await reopened.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the first vectors of a tenant', () => {
  it('start the index build in the background, so the first query finds it built', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'godb-vector-first-write-'));
    const engine = open(dir);
    try {
      const vectors = lowRankVectors(2100, 8);
      write(engine, vectors, 0);
      await copiesFilled(engine);
      assert.ok(engine.vectors.exactVectors(viewer.tenantId, model), 'built without a query');
      assert.equal((await searcher(engine)(vectors[77]!)).hits[0]?.doc.id, 'v77');
    } finally {
      await engine.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
