import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { openTestEngine, type TestEngine } from '../../test-support/engine.js';
import { seededRandom } from '../vectors/kmeans.js';
import type { Scope } from '../search/scope.js';
import { ftsRanked } from '../search/fts-rank.js';
import { indexTerms } from './tokenize.js';
import { analyseMatch, defaultQueryAnalysis } from './query-analysis.js';
import { Bm25Index } from './bm25-index.js';
import { scoreText } from './bm25-score.js';

const viewer = { tenantId: '00000000-0000-4000-8000-00000000b025', userId: 'owner', groups: [] as string[] };
const words =
  'boundary layers layer flows flowing turbulent laminar heating heated transfer wings lift drag pressures nozzle supersonic viscous plate cone cylinders jet noise vortex separation stability buckling panels shell stress thermal naïve résumé 2024 x'.split(
    ' ',
  );

function text(next: () => number, n: number): string {
  return Array.from({ length: n }, () => words[Math.floor(next() * words.length)]).join(' ');
}

/**
 * The same query through the in-memory index and through FTS5 (fts-rank.ts): any of the words (an OR expression),
 * with `phrase` the words in order (a quoted phrase), or groups of words (a wildcard's expansions).
 */
async function bothWays(engine: TestEngine, query: string[] | string[][], phrase = false, as = viewer) {
  await engine.text.loaded(viewer.tenantId);
  const scope: Scope = { viewer: as, now: 1_800_000_000 };
  const view = (hits: ReturnType<TestEngine['search']['textHits']>) =>
    hits.map((h) => ({ id: h.doc.id, score: Math.round(h.score * 1e9) / 1e9, chunks: h.chunks.length }));
  const match = Array.isArray(query[0])
    ? { groups: query as string[][] }
    : phrase
      ? { phrase: query as string[] }
      : { words: query as string[] };
  // FTS5 is asked in index terms, as textHits asks it after analysing the words.
  const ranked = ftsRanked(engine.search, scope, analyseMatch(match, defaultQueryAnalysis).match, 10_000);
  return {
    memory: view(engine.search.textHits(scope, match)),
    fts: view(engine.search.group(scope, ranked)),
  };
}

describe('in-memory BM25 index', () => {
  let engine: TestEngine;
  const next = seededRandom(11);
  const docs = (from: number, n: number) =>
    Array.from({ length: n }, (_v, i) => ({
      id: `d${from + i}`,
      title: text(next, 1 + Math.floor(next() * 5)),
      content: text(next, 5 + Math.floor(next() * 80)),
      embedding_options: { enabled: false },
      // Whole (FTS5 ranks chunks; a split document ranks as a whole in memory only: see issue-44's tests).
      chunk_size: 4096,
    }));

  before(async () => {
    engine = openTestEngine(':memory:');
    await engine.add(viewer, docs(0, 300), (i) => `[${i}]`);
  });
  after(async () => engine.close());

  it('analyses text as FTS5 porter unicode61 remove_diacritics 2 does', () => {
    assert.deepEqual(indexTerms('Turbulent FLOWS, naïve résumés; 2024-x'), [
      'turbul',
      'flow',
      'naiv',
      'resum',
      '2024',
      'x',
    ]);
  });

  it('scores and orders exactly as FTS5 bm25() with the same column weights', async () => {
    for (const query of [['turbulent'], ['boundary', 'layer'], ['heating', 'heated', 'naïve'], ['x', 'flows', 'x']]) {
      const { memory, fts } = await bothWays(engine, query);
      assert.ok(memory.length > 0, query.join(' '));
      assert.deepEqual(memory, fts, query.join(' '));
    }
  });

  it('ranks phrases exactly as FTS5 does: occurrences per column, never across title and content', async () => {
    let matched = 0;
    for (const query of [
      ['boundary', 'layer'],
      ['turbulent', 'flows'],
      ['x', 'x'],
      ['drag', 'pressures', 'nozzle'],
      ['naïve', 'résumé'],
      ['shell', 'thermal'],
    ]) {
      const { memory, fts } = await bothWays(engine, query, true);
      assert.deepEqual(memory, fts, query.join(' '));
      matched += memory.length;
    }
    assert.ok(matched > 10, 'the phrases do occur in the corpus');
  });

  it('stays equal to FTS5 after additions, new versions, deletions and a rolled-back batch', async () => {
    await engine.text.loaded(viewer.tenantId); // the writes below are applied to the loaded index
    await engine.add(viewer, docs(300, 50), (i) => `[${i}]`);
    await engine.add(viewer, docs(0, 20), (i) => `[${i}]`); // new versions of d0…d19
    engine.commands.delete(viewer, 'd25', { recursive: false, permanent: true });
    engine.commands.delete(viewer, 'd26', { recursive: false, permanent: false });
    await assert.rejects(
      engine.add(viewer, [...docs(400, 3), { ...docs(403, 1)[0]!, parent_doc_id: 'missing' }], (i) => `[${i}]`),
    );
    for (const [query, phrase] of [
      [['drag'], false],
      [['supersonic', 'nozzle'], false],
      [['stress', 'résumé'], false],
      [['lift', 'drag'], true],
    ] as const) {
      const { memory, fts } = await bothWays(engine, [...query], phrase);
      assert.deepEqual(memory, fts, query.join(' '));
      assert.ok(!memory.some((h) => ['d25', 'd26', 'd400'].includes(h.id)));
    }
    engine.maintenance.refresh(viewer.tenantId);
    const { memory, fts } = await bothWays(engine, ['cone', 'plate']);
    assert.deepEqual(memory, fts);
  });

  it('ranks the same after most chunks are removed and the postings compacted', () => {
    const random = seededRandom(3);
    const texts = Array.from({ length: 3000 }, () => [text(random, 3), text(random, 40)] as const);
    const churned = new Bm25Index({ title: 2, content: 1 });
    texts.forEach(([title, content], i) => churned.add(1000 + i, i, title, content, i % 2 === 0));
    for (let i = 0; i < 3000; i += 1) if (i % 6 !== 0) churned.remove(1000 + i); // 2,500 dead: compacted
    const fresh = new Bm25Index({ title: 2, content: 1 });
    texts.forEach(([title, content], i) => i % 6 === 0 && fresh.add(1000 + i, i, title, content, true));
    assert.equal(churned.size, 500);
    for (const query of [['turbul'], ['drag', 'lift', 'x'], ['naiv']]) {
      assert.deepEqual(churned.search(query, 25), fresh.search(query, 25), query.join(' '));
    }
    for (const phrase of [
      ['drag', 'lift'],
      ['x', 'x'],
      ['boundari', 'layer'],
    ]) {
      const found = fresh.phrase(phrase, 25);
      assert.deepEqual(churned.phrase(phrase, 25), found, phrase.join(' '));
    }
    assert.ok(fresh.phrase(['drag', 'lift'], 25).length > 0);
  });

  it('finds the best chunks of an exhaustive scoring when a common word is only looked up for the likely ones', () => {
    // Words of a Zipf-like vocabulary: `z0` is in nearly every chunk, `z40` in a few hundred, `z400` in a few. A
    // query for all three reads the rare words' postings and only probes the common one's (MaxScore); a dead chunk
    // must never be found, whichever list holds it.
    const random = seededRandom(7);
    const zipf = () => `z${Math.floor(2000 ** random()) - 1}`;
    const chunk = (n: number) => Array.from({ length: n }, zipf).join(' ');
    const texts = Array.from({ length: 4000 }, () => [chunk(3), chunk(30 + Math.floor(random() * 40))] as const);
    const index = new Bm25Index({ title: 2, content: 1 });
    texts.forEach(([title, content], i) => index.add(i + 1, i + 1, title, content, i % 5 !== 0));
    for (let i = 0; i < 4000; i += 9) index.remove(i + 1);
    const live = texts.flatMap(([title, content], i) => (i % 9 === 0 ? [] : [{ seq: i + 1, title, content }]));
    const stats = index.stats;
    for (const query of [['z0', 'z40', 'z400'], ['z1', 'z2', 'z90'], ['z3', 'z3', 'z700'], ['z0']]) {
      const df = query.map((word) => index.publicChunks(word));
      const expected = live
        .map(({ seq, title, content }) => ({
          seq,
          score: scoreText(
            title,
            content,
            query.map((word) => [word]),
            df,
            stats,
            { title: 2, content: 1 },
          ),
        }))
        .filter((c) => c.score > 0)
        .sort((a, b) => b.score - a.score || a.seq - b.seq);
      for (const depth of [10, 200]) {
        const found = index.search(query, depth);
        assert.deepEqual(
          found.map((c) => c.chunk),
          expected.slice(0, depth).map((c) => c.seq),
          `${query.join(' ')} at depth ${depth}`,
        );
        found.forEach((c, i) => assert.ok(Math.abs(c.score - expected[i]!.score) < 1e-9));
      }
    }
  });

  it('loads in slices in the background, answering through FTS5 meanwhile, and keeps writes made during the load', async () => {
    const many = openTestEngine(':memory:');
    try {
      const random = seededRandom(5);
      const small = (from: number, n: number) =>
        Array.from({ length: n }, (_v, i) => ({
          id: `m${from + i}`,
          title: text(random, 2),
          content: text(random, 12),
          embedding_options: { enabled: false },
        }));
      await many.add(viewer, small(0, 5000), (i) => `[${i}]`); // three slices of 2,000 rows
      const scope: Scope = { viewer, now: 1_800_000_000 };
      assert.equal(many.text.ranked(viewer.tenantId), undefined, 'the first call starts the load');
      const during = many.search.textHits(scope, { words: ['drag'] }, { limit: 5 });
      assert.ok(during.length >= 5, 'answered through FTS5 while loading');
      await new Promise((resolve) => setImmediate(resolve)); // one slice read
      many.commands.delete(viewer, 'm10', { recursive: false, permanent: true }); // in the rows read
      many.commands.delete(viewer, 'm4900', { recursive: false, permanent: true }); // not read yet
      await many.add(viewer, small(5000, 10), (i) => `[${i}]`);
      assert.equal(many.text.ranked(viewer.tenantId), undefined, 'still loading');
      for (const query of [['drag'], ['vortex', 'shell', 'x']]) {
        const { memory, fts } = await bothWays(many, query);
        assert.deepEqual(memory, fts, query.join(' '));
        assert.ok(!memory.some((h) => h.id === 'm10' || h.id === 'm4900'));
      }
      assert.equal(many.text.ranked(viewer.tenantId)!.size, 5008);
    } finally {
      await many.close();
    }
  });
});
