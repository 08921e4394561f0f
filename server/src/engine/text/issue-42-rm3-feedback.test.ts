// Issue #42: RM3 pseudo-relevance feedback as a text query option. The engine's ranking with `feedback` equals a
// direct RM3 written here (BM25 over the public statistics, the best documents' term distributions, stop words and
// numbers left out, mixed with the query) to 1e-6 on small random data; a document the caller cannot read, or that
// the filters reject, never lends an expansion term.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { stopwords as english } from '@orama/stopwords/english';
import { openTestEngine, type TestEngine } from '../../test-support/engine.js';
import type { Viewer } from '../documents/types.js';
import { parseFilters } from '../search/filters.js';
import type { Scope } from '../search/scope.js';
import { feedbackSearch } from '../search/text-search.js';
import { seededRandom } from '../vectors/kmeans.js';
import { defaultQueryAnalysis } from './query-analysis.js';
import type { FeedbackOptions } from './rm3-feedback.js';
import { indexTerms, stem } from './tokenize.js';

const tenant = '00000000-0000-4000-8000-0000000004a2';
const owner: Viewer = { tenantId: tenant, userId: 'owner', groups: [] };
const other: Viewer = { tenantId: tenant, userId: 'other', groups: [] };
const words = (
  'boundary layer turbulent laminar flow heat transfer wing lift drag pressure nozzle supersonic viscous plate cone ' +
  'jet noise vortex separation shock wake mach slender delta flutter the of and with 1957 12'
).split(' ');
const next = seededRandom(4242);
const text = (n: number) => Array.from({ length: n }, () => words[Math.floor(next() * words.length)]).join(' ');

interface Doc {
  id: string;
  title: string;
  content: string;
  visibility: 'public' | 'private';
  tags: string[];
}
const docs: Doc[] = Array.from({ length: 80 }, (_v, i) => ({
  id: `d${i}`,
  title: text(2 + (i % 4)),
  content: text(8 + Math.floor(next() * 40)),
  visibility: i % 6 === 0 ? 'private' : 'public',
  tags: [i % 4 === 0 ? 'held' : 'open'],
}));
// Only the owner may read this one; it matches the query best and holds a word nothing else holds.
docs.push({
  id: 'secret',
  title: 'shock shock wake',
  content: 'shock wake zeppelin zeppelin zeppelin shock',
  visibility: 'private',
  tags: ['open'],
});
// Readable by anyone, but the filter below rejects it.
docs.push({
  id: 'filtered',
  title: 'shock wake',
  content: 'shock wake dirigible dirigible dirigible shock',
  visibility: 'public',
  tags: ['held'],
});
const queries = ['shock wake', 'heat transfer plate', 'flutter', 'the vortex noise', 'mach 12 slender'];
const options: FeedbackOptions[] = [
  { docs: 5, terms: 10, original_weight: 0.5 },
  { docs: 3, terms: 4, original_weight: 0.7 },
  { docs: 10, terms: 20, original_weight: 0.2 },
];

/** A direct BM25 + RM3 over `docs` (the engine's formulas: FTS5 idf over public documents, title × 2). */
function direct(readable: (d: Doc) => boolean, query: string, r: FeedbackOptions) {
  const model = docs.map((d) => {
    const title = indexTerms(d.title);
    const content = indexTerms(d.content);
    const tf = new Map<string, number>();
    const all = new Map<string, number>();
    for (const t of title) tf.set(t, (tf.get(t) ?? 0) + 2);
    for (const t of content) tf.set(t, (tf.get(t) ?? 0) + 1);
    for (const t of [...title, ...content]) all.set(t, (all.get(t) ?? 0) + 1);
    return { d, tf, all, length: title.length + content.length };
  });
  const pub = model.filter((m) => m.d.visibility === 'public');
  const avg = pub.reduce((s, m) => s + m.length, 0) / pub.length;
  const idf = (t: string) => {
    const n = pub.filter((m) => m.tf.has(t)).length;
    const v = Math.log((pub.length - n + 0.5) / (n + 0.5));
    return v <= 0 ? 1e-6 : v;
  };
  const rank = (q: Map<string, number>) =>
    model
      .filter((m) => readable(m.d))
      .map((m) => {
        let score = 0;
        let hit = false;
        for (const [t, w] of q) {
          const f = m.tf.get(t);
          if (f === undefined) continue;
          hit = true;
          score += (w * idf(t) * f * 2.2) / (f + 1.2 * (0.25 + (0.75 * m.length) / avg));
        }
        return { m, score, hit };
      })
      .filter((x) => x.hit)
      .sort((a, b) => b.score - a.score);
  const q = new Map<string, number>();
  for (const t of indexTerms(query)) q.set(t, (q.get(t) ?? 0) + 1);
  const top = rank(q).slice(0, r.docs);
  const total = top.reduce((s, x) => s + x.score, 0);
  const stop = new Set(english.map((w) => stem(w)));
  const rel = new Map<string, number>();
  for (const { m, score } of top)
    for (const [t, f] of m.all)
      if (!stop.has(t) && !/^\d/.test(t)) rel.set(t, (rel.get(t) ?? 0) + (f / m.length) * (score / total));
  const expansion = [...rel].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, r.terms);
  const eSum = expansion.reduce((s, [, v]) => s + v, 0);
  const qSum = [...q.values()].reduce((s, v) => s + v, 0);
  const mixed = new Map<string, number>();
  for (const [t, w] of q) mixed.set(t, (r.original_weight * w) / qSum);
  for (const [t, w] of expansion) mixed.set(t, (mixed.get(t) ?? 0) + ((1 - r.original_weight) * w) / eSum);
  return {
    ranking: rank(mixed).map((x) => [x.m.d.id, x.score] as const),
    documents: top.map((x) => x.m.d.id),
    terms: mixed,
  };
}

let engine: TestEngine;
let dir: string;
before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'godb-rm3-'));
  engine = openTestEngine(dir);
  const inputs = docs.map((d) => ({ ...d, embedding_options: { enabled: false } }));
  await engine.add(owner, inputs, (i) => `[${i}]`);
  await engine.text.loaded(tenant);
});
after(async () => {
  await engine.close();
  rmSync(dir, { recursive: true, force: true });
});

const search = (scope: Scope, query: string, r: FeedbackOptions) =>
  feedbackSearch(engine.search, scope, query, 'match', 200, defaultQueryAnalysis, undefined, r);

describe('RM3 feedback (issue #42)', () => {
  it('ranks as a direct RM3 implementation, to 1e-6, for a caller who reads everything and one who does not', () => {
    for (const [viewer, readable] of [
      [owner, () => true],
      [other, (d: Doc) => d.visibility === 'public'],
    ] as const) {
      for (const query of queries) {
        for (const r of options) {
          const expected = direct(readable, query, r);
          const got = search({ viewer, now: 1_800_000_000 }, query, r);
          const at = `${viewer.userId} "${query}" ${JSON.stringify(r)}`;
          assert.deepEqual(got.explained!.documents, expected.documents, at);
          assert.equal(got.explained!.terms.length, expected.terms.size, at);
          for (const { term, weight } of got.explained!.terms)
            assert.ok(Math.abs(weight - expected.terms.get(term)!) < 1e-9, `${at}: ${term}`);
          assert.equal(got.hits.length, expected.ranking.length, at);
          got.hits.forEach((h, i) => {
            const [id, score] = expected.ranking[i]!;
            assert.ok(Math.abs(h.score - score) < 1e-6, `${at} #${i}: ${h.doc.id} ${h.score} vs ${id} ${score}`);
            // Equal scores may come in either order; a different score may not.
            if (h.doc.id !== id)
              assert.ok(Math.abs(h.score - expected.ranking.find((e) => e[0] === h.doc.id)![1]) < 1e-6);
          });
          // Stop words and numbers are never added (the query's own terms stay).
          const asked = new Set(indexTerms(query));
          const added = got.explained!.terms.filter((t) => !asked.has(t.term));
          assert.ok(!added.some((t) => /^\d/.test(t.term) || ['the', 'of', 'and', 'with'].includes(t.term)), at);
        }
      }
    }
  });

  it('never takes terms from a document the caller cannot read, or that the filters reject', () => {
    const r = { docs: 5, terms: 10, original_weight: 0.5 };
    const terms = (scope: Scope) => search(scope, 'shock wake', r).explained!;
    const mine = terms({ viewer: owner, now: 1_800_000_000 });
    // The owner reads it: it is a feedback document and lends its word (so the test below can tell).
    assert.ok(mine.documents.includes('secret'));
    assert.ok(mine.terms.some((t) => t.term === 'zeppelin'));
    const theirs = terms({ viewer: other, now: 1_800_000_000 });
    assert.ok(!theirs.documents.includes('secret'));
    assert.ok(!theirs.terms.some((t) => t.term === 'zeppelin'), JSON.stringify(theirs));
    assert.ok(
      theirs.terms.some((t) => t.term === 'dirig'),
      'an unfiltered search takes the filtered one',
    );
    const filters = parseFilters([{ field: 'tags', operator: 'contains', value: 'open' }], 'body.filters');
    const filtered = terms({ viewer: other, now: 1_800_000_000, ...(filters && { filters }) });
    assert.ok(!filtered.documents.includes('filtered'));
    assert.ok(!filtered.terms.some((t) => t.term === 'dirig' || t.term === 'zeppelin'), JSON.stringify(filtered));
  });
});
