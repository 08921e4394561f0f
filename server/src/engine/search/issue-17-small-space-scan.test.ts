import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { openTestEngine } from '../../test-support/engine.js';
import { searchNearest, testModel, unitVectors, writeVectors } from '../../test-support/vectors.js';
import { exactBelow } from './vector-search.js';

// Issue #17's bench:cluster measured vector search seven times slower on three nodes than on one: the nodes held
// fewer documents than exactBelow, so every query scanned the space exactly, reading every vector from SQLite and
// every document's row. A small space is now scanned from the index's float32 copies in memory, rows read for the
// best documents only; the store's scan remains for an engine whose copies are off (VECTOR_CACHE_MB=0).

const viewer = { tenantId: '00000000-0000-4000-8000-0000000000c3', userId: 'owner', groups: [] as string[] };

describe('vector search of a space smaller than exactBelow (issue #17)', () => {
  it('compares the query with the float32 copies in memory, not the store, and answers what the store scan answers', async () => {
    const dirs = [0, 1].map(() => mkdtempSync(join(tmpdir(), 'godb-small-scan-')));
    const withCopies = openTestEngine(dirs[0]!, testModel);
    const storeOnly = openTestEngine(dirs[1]!, testModel, { vectorCacheBytes: 0 });
    try {
      const vectors = unitVectors(300, 17);
      assert.ok(vectors.length <= exactBelow);
      for (const engine of [withCopies, storeOnly]) writeVectors(engine, viewer, vectors, 0);
      await withCopies.commands.delete(viewer, 'v9', { recursive: false, permanent: false });
      await storeOnly.commands.delete(viewer, 'v9', { recursive: false, permanent: false });

      for (const n of [0, 9, 150, 299]) {
        const a = await searchNearest(withCopies, viewer, vectors[n]!, 10);
        const b = await searchNearest(storeOnly, viewer, vectors[n]!, 10);
        assert.equal(a.exact, true);
        // The first ten: the answer's limit (the store's scan hands on every document it ranked, the scan of the
        // copies the best few it read rows for).
        const best = (hits: typeof a.hits) => hits.slice(0, 10);
        assert.deepEqual(
          best(a.hits).map((h) => h.doc.id),
          best(b.hits).map((h) => h.doc.id),
          `query ${n}: the same documents in the same order`,
        );
        best(a.hits).forEach((h, i) => assert.ok(Math.abs(h.score - b.hits[i]!.score) < 1e-6, `query ${n}, hit ${i}`));
        assert.ok(!a.hits.some((h) => h.doc.id === 'v9'), 'a deleted document is not found');
      }

      // The vectors leave the store (the rows stay): the engine with copies still finds each document by its own
      // vector, so it compared the query with the copies; the store's scan finds nothing left to compare.
      for (const engine of [withCopies, storeOnly]) engine.db.prepare('UPDATE chunks SET vector = NULL').run();
      assert.equal((await searchNearest(withCopies, viewer, vectors[150]!)).hits[0]?.doc.id, 'v150');
      assert.deepEqual((await searchNearest(storeOnly, viewer, vectors[150]!)).hits, []);
    } finally {
      await Promise.all([withCopies.close(), storeOnly.close()]);
      for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    }
  });
});
