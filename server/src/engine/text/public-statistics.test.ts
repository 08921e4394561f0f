import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { DocumentInput } from '@godb/contract';
import { openTestEngine, type TestEngine } from '../../test-support/engine.js';
import { seededRandom } from '../vectors/kmeans.js';
import type { Viewer } from '../documents/types.js';
import { ftsRanked } from '../search/fts-rank.js';
import { analyseMatch, defaultQueryAnalysis } from './query-analysis.js';
import type { Scope } from '../search/scope.js';
import type { TextMatch } from '../search/fts-query.js';

/**
 * Issue #22's statistical side channel: BM25's statistics (chunk count, average length, document frequencies)
 * count the tenant's public chunks only, so a score depends on nothing its caller may not read. Through the
 * in-memory index and through FTS5 alike.
 */

const tenantId = '00000000-0000-4000-8000-0000000005a7';
const alice: Viewer = { tenantId, userId: 'alice', groups: [] }; // writes the public documents
const bob: Viewer = { tenantId, userId: 'bob', groups: [] }; // reads
const carol: Viewer = { tenantId, userId: 'carol', groups: [] }; // writes private and shared documents
const words = 'boundary layer turbulent flow heat transfer wing drag nozzle shock vortex plate cone jet noise'.split(
  ' ',
);
const now = 1_800_000_000;

function text(next: () => number, n: number): string {
  return Array.from({ length: n }, () => words[Math.floor(next() * words.length)]).join(' ');
}

const publicDocs = (() => {
  const next = seededRandom(21);
  return Array.from({ length: 60 }, (_v, i) => ({
    id: `p${i}`,
    title: text(next, 3),
    content: text(next, 10 + Math.floor(next() * 60)),
    embedding_options: { enabled: false },
  }));
})();

/** Carol's documents, using the same words far more often: private, or shared with a group bob is not in. */
const hiddenDocs = (() => {
  const next = seededRandom(22);
  return Array.from({ length: 40 }, (_v, i): DocumentInput => ({
    id: `h${i}`,
    title: 'boundary layer turbulent',
    content: `boundary layer ${text(next, 5 + Math.floor(next() * 200))} turbulent flow`,
    visibility: i % 2 === 0 ? 'private' : 'shared',
    ...(i % 2 === 1 && { access_list: ['group-without-bob'] }),
    embedding_options: { enabled: false },
    // Whole, as FTS5 (which ranks chunks) must rank them alike: split documents rank as wholes in memory only.
    chunk_size: 4096,
  }));
})();

const queries: TextMatch[] = [
  { words: ['boundary'] },
  { words: ['turbulent', 'flow', 'nozzle'] },
  { phrase: ['boundary', 'layer'] },
  { groups: [['boundary', 'turbulent'], ['flow']] },
];

/** A caller's hits for a match: ids with scores (to 1e-9), through the loaded index or through FTS5. */
async function hits(engine: TestEngine, as: Viewer, match: TextMatch, via: 'memory' | 'fts5') {
  await engine.text.loaded(tenantId);
  const scope: Scope = { viewer: as, now };
  const found =
    via === 'memory'
      ? engine.search.textHits(scope, match)
      : engine.search.group(
          scope,
          ftsRanked(engine.search, scope, analyseMatch(match, defaultQueryAnalysis).match, 10_000),
        );
  return found.map((h) => ({ id: h.doc.id, score: Math.round(h.score * 1e9) / 1e9 }));
}

describe('BM25 statistics of the public chunks only', () => {
  let onlyPublic: TestEngine;
  let mixed: TestEngine;

  before(async () => {
    onlyPublic = openTestEngine(':memory:');
    await onlyPublic.add(alice, publicDocs, (i) => `[${i}]`);
    mixed = openTestEngine(':memory:');
    await mixed.add(alice, publicDocs, (i) => `[${i}]`);
    await mixed.add(carol, hiddenDocs, (i) => `[${i}]`);
  });
  after(async () => {
    await onlyPublic.close();
    await mixed.close();
  });

  it('scores what a reader may read exactly as in a tenant holding only the public documents', async () => {
    for (const match of queries) {
      const expected = await hits(onlyPublic, bob, match, 'memory');
      assert.ok(expected.length > 10, JSON.stringify(match));
      for (const via of ['memory', 'fts5'] as const) {
        assert.deepEqual(await hits(mixed, bob, match, via), expected, `${via} ${JSON.stringify(match)}`);
      }
    }
    // A tenant of public documents only is what FTS5's own bm25() scores: the reference.
    assert.deepEqual(
      await hits(onlyPublic, bob, queries[1]!, 'fts5'),
      await hits(onlyPublic, bob, queries[1]!, 'memory'),
    );
  });

  it("scores a reader's private and shared chunks with the same statistics, through the index and FTS5 alike", async () => {
    for (const match of queries) {
      const memory = await hits(mixed, carol, match, 'memory');
      assert.ok(
        memory.some((h) => h.id.startsWith('h')),
        'carol reads her own documents',
      );
      assert.deepEqual(await hits(mixed, carol, match, 'fts5'), memory, JSON.stringify(match));
      // The public documents score the same for her as for bob.
      const open = new Map((await hits(mixed, bob, match, 'memory')).map((h) => [h.id, h.score]));
      for (const h of memory) if (h.id.startsWith('p')) assert.equal(h.score, open.get(h.id), h.id);
    }
  });

  it("keeps the in-memory statistics equal to FTS5's through visibility changes, new versions and deletions", async () => {
    const index = (await mixed.text.loaded(tenantId))!;
    const stats = () => ({ memory: index.stats, fts5: mixed.text.publicStats(tenantId) });
    const start = stats();
    assert.deepEqual(start.memory, start.fts5);
    assert.equal(start.memory.chunks, 60, 'one chunk per public document');

    mixed.documents.access.setVisibility(carol, 'h0', 'public');
    const opened = stats();
    assert.deepEqual(opened.memory, opened.fts5);
    assert.equal(opened.memory.chunks, 61);
    const withH0 = await hits(mixed, bob, { words: ['boundary'] }, 'memory');
    assert.ok(withH0.some((h) => h.id === 'h0'));
    assert.notDeepEqual(
      withH0.filter((h) => h.id !== 'h0'),
      await hits(onlyPublic, bob, { words: ['boundary'] }, 'memory'),
      'a public document counts',
    );
    mixed.documents.access.setVisibility(carol, 'h0', 'shared');
    assert.deepEqual(stats(), start, 'and stops counting when it is no longer public');
    for (const via of ['memory', 'fts5'] as const) {
      assert.deepEqual(
        await hits(mixed, bob, { words: ['boundary'] }, via),
        await hits(onlyPublic, bob, { words: ['boundary'] }, 'memory'),
      );
    }

    await mixed.add(alice, [{ ...publicDocs[0]!, content: 'boundary '.repeat(30) }], () => 'body');
    await mixed.add(carol, [{ ...hiddenDocs[2]!, visibility: 'public' }], () => 'body'); // v2 public
    mixed.commands.delete(alice, 'p1', { recursive: false, permanent: false });
    mixed.commands.delete(alice, 'p2', { recursive: false, permanent: true });
    const changed = stats();
    assert.deepEqual(changed.memory, changed.fts5);
    const h2Chunks = mixed.db
      .prepare("SELECT count(*) FROM chunks c JOIN documents d ON d.seq = c.doc_seq WHERE d.id = 'h2'")
      .pluck()
      .get() as number;
    assert.equal(changed.memory.chunks, 60 - 2 + h2Chunks, 'p1 and p2 deleted, h2 public');

    // Rebuilt from the store, the index has the same statistics and scores.
    const before = await hits(mixed, carol, queries[1]!, 'memory');
    mixed.maintenance.refresh(tenantId);
    const rebuilt = (await mixed.text.loaded(tenantId))!;
    assert.notEqual(rebuilt, index);
    assert.deepEqual(rebuilt.stats, changed.memory);
    assert.deepEqual(await hits(mixed, carol, queries[1]!, 'memory'), before);
    assert.deepEqual(await hits(mixed, carol, queries[1]!, 'fts5'), before);
  });

  it('orders expansions by public chunks, the same before and after the index loads', async () => {
    const engine = openTestEngine(':memory:');
    try {
      await engine.add(alice, publicDocs, (i) => `[${i}]`);
      await engine.add(carol, hiddenDocs, (i) => `[${i}]`);
      const asked = [...words, 'layers', 'flows', 'missing'];
      assert.equal(engine.text.ranked(tenantId), undefined, 'not loaded yet');
      const fromFts5 = engine.text.publicFrequencies(tenantId, asked);
      await engine.text.loaded(tenantId);
      assert.deepEqual(engine.text.publicFrequencies(tenantId, asked), fromFts5);
      assert.equal(fromFts5.get('missing'), 0);
      assert.equal(fromFts5.get('layers'), fromFts5.get('layer'), 'counted by stem');
      const boundary = publicDocs.filter((d) => `${d.title} ${d.content}`.includes('boundary')).length;
      assert.equal(fromFts5.get('boundary'), boundary, 'carol’s documents do not count');
    } finally {
      await engine.close();
    }
  });

  it('scores with neutral statistics when a tenant has no public text', async () => {
    const engine = openTestEngine(':memory:');
    try {
      await engine.add(carol, hiddenDocs.slice(0, 6), (i) => `[${i}]`);
      assert.deepEqual(engine.text.publicStats(tenantId), { chunks: 0, tokens: 0 });
      for (const match of queries) {
        const memory = await hits(engine, carol, match, 'memory');
        assert.ok(memory.length > 0 && memory.every((h) => h.score > 0.1), JSON.stringify(memory));
        assert.deepEqual(await hits(engine, carol, match, 'fts5'), memory);
      }
    } finally {
      await engine.close();
    }
  });
});

describe('a store written before the text tables were split by visibility', () => {
  it('moves the chunks of private and shared documents out of the public table when it opens', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'godb-split-'));
    try {
      const first = openTestEngine(dir);
      await first.add(alice, publicDocs.slice(0, 20), (i) => `[${i}]`);
      await first.add(carol, hiddenDocs.slice(0, 10), (i) => `[${i}]`);
      const expected = await hits(first, carol, queries[1]!, 'memory');
      const key = first.text.key(tenantId)!;
      const hiddenChunks = first.db
        .prepare("SELECT count(*) FROM chunks c JOIN documents d ON d.seq = c.doc_seq WHERE d.visibility <> 'public'")
        .pluck()
        .get();
      // The layout before the split: every chunk in fts_<k>, no hidden_<k> or pvocab_<k>.
      first.db.exec(`
        INSERT INTO fts_${key} (rowid, title, content) SELECT rowid, title, content FROM hidden_${key};
        DROP TABLE hidden_${key}; DROP TABLE pvocab_${key};
      `);
      await first.close();

      const reopened = openTestEngine(dir);
      try {
        const count = (table: string) => reopened.db.prepare(`SELECT count(*) FROM ${table}`).pluck().get();
        assert.equal(count(`fts_${key}`), 20);
        assert.equal(count(`hidden_${key}`), hiddenChunks);
        assert.deepEqual(reopened.text.publicStats(tenantId).chunks, 20);
        assert.deepEqual(await hits(reopened, carol, queries[1]!, 'fts5'), expected);
        assert.deepEqual(await hits(reopened, carol, queries[1]!, 'memory'), expected);
      } finally {
        await reopened.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
