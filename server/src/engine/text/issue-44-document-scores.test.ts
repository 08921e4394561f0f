import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { seededRandom } from '../vectors/kmeans.js';
import { Bm25Index, chunksPerHit } from './bm25-index.js';
import { readBm25File, writeBm25File } from './bm25-file.js';
import { sharedTerms } from './chunk-overlap.js';
import { splitIntoWindows } from './text-windows.js';
import { analysed, indexTerms } from './tokenize.js';

/**
 * Issue #44: a document split into overlapping chunks is ranked as the same document whole (words, phrases and
 * wildcard groups) — through writes,
 * visibility changes, compaction and a checkpoint read back — so chunking for embeddings never moves text scores.
 */

const weights = { title: 2, content: 1 };
const words =
  'boundary layer turbulent laminar flow heat transfer wing lift drag pressure gradient nozzle supersonic hypersonic viscous plate cone cylinder jet noise vortex separation transition stability buckling panel shell stress thermal radiation ablation reentry inlet compressor turbine blade cooling film combustion wake shock expansion mach number reynolds slender body delta swept aspect ratio flutter'.split(
    ' ',
  );
const next = seededRandom(44);
const text = (n: number) => Array.from({ length: n }, () => words[Math.floor(next() * words.length)]).join(' ');
const docs = Array.from({ length: 400 }, (_v, i) => ({
  seq: i + 1,
  title: text(2 + (i % 5)),
  content: text(20 + Math.floor(next() * 300)),
  isPublic: i % 9 !== 0,
}));
const queries = ['heat transfer', 'ablation reentry nozzle', 'flutter', 'mach number shock wake', 'slender delta wing'];

/** Each document as one entry, and split as document chunking splits it (256 characters, 200 of overlap). */
function indexes(): { whole: Bm25Index; split: Bm25Index; chunksOf: Map<number, number[]> } {
  const whole = new Bm25Index(weights);
  const split = new Bm25Index(weights);
  const chunksOf = new Map<number, number[]>();
  let chunkSeq = 0;
  for (const d of docs) {
    whole.add(d.seq, d.seq, analysed(d.title), analysed(d.content), d.isPublic);
    const seqs: number[] = [];
    for (const w of splitIntoWindows(d.content, { size: 256, overlap: 200, unit: 'chars' })) {
      chunkSeq += 1;
      split.add(1_000_000 + chunkSeq, d.seq, analysed(d.title), analysed(w.text), d.isPublic);
      seqs.push(1_000_000 + chunkSeq);
    }
    chunksOf.set(d.seq, seqs);
  }
  return { whole, split, chunksOf };
}

/** The documents in order with their scores (to 1e-9), by words or as a phrase. */
function ranked(index: Bm25Index, query: string, how: 'words' | 'phrase' | 'groups') {
  const terms = indexTerms(query);
  const rows =
    how === 'words'
      ? index.search(terms, 5000)
      : how === 'phrase'
        ? index.phrase(terms, 5000)
        : // A wildcard query: its first word's expansions to one of two terms, then every other word.
          index.groups([[terms[0]!, 'flutter'], ...terms.slice(1).map((t) => [t])], 5000);
  const seen = new Map<number, string>();
  for (const r of rows) if (!seen.has(r.doc)) seen.set(r.doc, (r.docScore ?? r.score).toFixed(9));
  return [...seen].slice(0, 25);
}

function assertSame(whole: Bm25Index, split: Bm25Index, when: string) {
  for (const q of queries) {
    for (const how of ['words', 'phrase', 'groups'] as const) {
      const expected = ranked(whole, q, how);
      assert.deepEqual(ranked(split, q, how), expected, `${when}: ${how} ${q}`);
      if (how === 'words') assert.ok(expected.length > 0);
    }
  }
  assert.deepEqual(split.documentStats, whole.stats, when);
}

describe('document-level BM25 over chunked documents', () => {
  const dirs: string[] = [];
  after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

  it('finds the overlap of consecutive chunks from their terms', () => {
    assert.equal(sharedTerms(Int32Array.of(1, 2, 3, 4), Int32Array.of(3, 4, 5)), 2);
    assert.equal(sharedTerms(Int32Array.of(1, 2, 3), Int32Array.of(4, 5)), 0);
    assert.equal(sharedTerms(Int32Array.of(7, 1, 7, 1), Int32Array.of(7, 1, 9)), 2);
  });

  it('scores a split document as the document whole, by words, by phrase and by wildcard groups', () => {
    const { whole, split } = indexes();
    assert.ok(split.size > 4 * whole.size, 'documents of many chunks');
    assertSame(whole, split, 'built');
  });

  it('stays the same through new versions, visibility changes, deletions and compaction', () => {
    const { whole, split, chunksOf } = indexes();
    assertSame(whole, split, 'built'); // counts the document frequencies a write must then update
    for (const d of docs.slice(0, 300)) {
      if (d.seq % 3 === 0) {
        whole.setPublic(d.seq, !d.isPublic);
        for (const c of chunksOf.get(d.seq)!) split.setPublic(c, !d.isPublic);
      } else {
        whole.remove(d.seq);
        for (const c of chunksOf.get(d.seq)!) split.remove(c); // most chunks dead: compacted
      }
    }
    assertSame(whole, split, 'after deletions');
    const content = text(400);
    whole.add(5000, 5000, analysed('new version'), analysed(content), true);
    splitIntoWindows(content, { size: 256, overlap: 200, unit: 'chars' }).forEach((w, i) =>
      split.add(9_000_000 + i, 5000, analysed('new version'), analysed(w.text), true),
    );
    assertSame(whole, split, 'after an addition');
    // Writes replayed: chunks added again, a middle and the last of a document, keep their place in it.
    const seqs = chunksOf.get(docs[350]!.seq)!;
    const again = splitIntoWindows(docs[350]!.content, { size: 256, overlap: 200, unit: 'chars' });
    assert.ok(seqs.length > 2);
    for (const i of [1, seqs.length - 1])
      split.add(seqs[i]!, docs[350]!.seq, analysed(docs[350]!.title), analysed(again[i]!.text), docs[350]!.isPublic);
    assertSame(whole, split, 'after chunks added again');
  });

  it('answers at most the chunks a hit shows per document, so long documents leave room for others', () => {
    const index = new Bm25Index(weights);
    // 30 long documents of 60 chunks, each chunk mentioning the word: a window of 200 chunks held 4 documents.
    for (let d = 1; d <= 30; d += 1)
      for (let c = 0; c < 60; c += 1)
        index.add(d * 1000 + c, d, analysed(`report ${d}`), analysed(`flow ${text(30)}`), true);
    for (const rows of [
      index.search(indexTerms('flow'), 200),
      index.phrase(indexTerms('flow'), 200),
      index.groups([indexTerms('flow')], 200),
    ]) {
      const perDoc = new Map<number, number>();
      for (const r of rows) perDoc.set(r.doc, (perDoc.get(r.doc) ?? 0) + 1);
      assert.equal(perDoc.size, 30);
      assert.ok([...perDoc.values()].every((n) => n === chunksPerHit));
    }
  });

  it('reads the document statistics back from a checkpoint of its chunks', async () => {
    const { whole, split } = indexes();
    const dir = mkdtempSync(join(tmpdir(), 'godb-issue-44-'));
    dirs.push(dir);
    const { state, release } = split.capture();
    await writeBm25File(join(dir, 'index.bm25'), state, { fileId: 'a', tenantId: 't' });
    release();
    const restored = Bm25Index.restore(weights, (await readBm25File(join(dir, 'index.bm25')))!.state);
    assertSame(whole, restored, 'read back');
  });
});
