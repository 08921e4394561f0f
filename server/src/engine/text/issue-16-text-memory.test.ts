// Issue #16 (bounded memory): the in-memory BM25 indexes of all tenants stay under their budget; the least recently
// queried leaves memory, and its tenant's answers stay the same (FTS5 ranks meanwhile, then the index is rebuilt).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Engine } from '../engine.js';
import { openTestEngine } from '../../test-support/engine.js';
import { seededRandom } from '../vectors/kmeans.js';
import type { Viewer } from '../documents/types.js';
import { textSearch } from '../search/text-search.js';

const words = 'boundary layer turbulent flow heat transfer wing drag nozzle shock vortex plate cone jet noise'.split(
  ' ',
);
const viewerOf = (tenantId: string): Viewer => ({ tenantId, userId: 'owner', groups: [] });
const tenants = ['00000000-0000-4000-8000-0000000000c1', '00000000-0000-4000-8000-0000000000c2'];

const docs = (seed: number) => {
  const next = seededRandom(seed);
  const text = (n: number) => Array.from({ length: n }, () => words[Math.floor(next() * words.length)]).join(' ');
  return Array.from({ length: 200 }, (_v, i) => ({
    id: `t${i}`,
    title: text(3),
    content: text(40),
    embedding_options: { enabled: false },
  }));
};

const search = (engine: Engine, tenantId: string) =>
  textSearch(engine.search, { viewer: viewerOf(tenantId), now: 1_800_000_000 }, 'shock vortex', 'match', 10).hits.map(
    (h) => [h.doc.id, h.score],
  );

/** The tenant's in-memory index, once its background build is done. */
const loaded = async (engine: Engine, tenantId: string) => {
  const index = await engine.text.loaded(tenantId);
  assert.ok(index);
  return index;
};

describe('the text index memory budget', () => {
  it('evicts the least recently queried tenant’s index, whose answers stay the same', async () => {
    const probe = openTestEngine(':memory:');
    let oneIndex: number;
    try {
      await probe.add(viewerOf(tenants[0]!), docs(1), (i) => `[${i}]`);
      oneIndex = (await loaded(probe, tenants[0]!)).bytes;
    } finally {
      await probe.close();
    }
    // Room for one tenant's index, not two.
    const engine = openTestEngine(':memory:', 'glove-100', { textIndexBytes: Math.round(oneIndex * 1.5) });
    try {
      for (const [i, tenantId] of tenants.entries()) await engine.add(viewerOf(tenantId), docs(i + 1), (n) => `[${n}]`);
      const first = search(engine, tenants[0]!); // ranked by FTS5 while the index builds
      await loaded(engine, tenants[0]!);
      assert.deepEqual(search(engine, tenants[0]!), first, 'the in-memory index ranks as FTS5 did');
      await loaded(engine, tenants[1]!);
      const memory = engine.text.memory();
      assert.equal(memory.evictions, 1, 'the first tenant’s index left memory');
      assert.equal(memory.tenants, 1);
      assert.ok(memory.bytes <= memory.budget, 'within the budget');
      assert.equal(engine.text.ranked(tenants[0]!), undefined, 'not in memory: rebuilding in the background');
      assert.deepEqual(search(engine, tenants[0]!), first, 'answered by FTS5 with the same scores meanwhile');
      await loaded(engine, tenants[0]!);
      assert.deepEqual(search(engine, tenants[0]!), first, 'and by the rebuilt index');
      assert.equal(engine.text.memory().evictions, 2, 'then the second tenant’s left');
    } finally {
      await engine.close();
    }
  });
});
