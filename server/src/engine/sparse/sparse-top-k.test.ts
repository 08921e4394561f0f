import assert from 'node:assert/strict';
import { test } from 'node:test';
import { seededRandom } from '../../test-support/fuzz-inputs.js';
import type { SparseVectorValue } from './sparse-input.js';
import { SparseLists } from './sparse-lists.js';
import { sparseTopK, type SparseScored } from './sparse-top-k.js';

// The pruned top-k (MaxScore, decision 0070) against exhaustive scoring of the same float32 values, on random data
// skewed as learned sparse vectors are (a few terms in most documents), with negative weights, removed documents
// (before and after a compaction) and allowed sets.

const next = seededRandom(7070);
const vocabulary = 400;

function vectorOf(n: number, signed: boolean): SparseVectorValue {
  const picked = new Set<number>();
  for (let tries = 0; picked.size < n && tries < n * 20; tries += 1) picked.add(Math.floor(vocabulary ** next()) - 1);
  const indices = [...picked].sort((a, b) => a - b);
  return { indices, values: indices.map(() => (signed ? next() * 1.5 - 0.5 : 0.01 + next())) };
}

/** Term at a time in query order, over the values as float32 (what the lists hold). */
function exhaustive(
  docs: ReadonlyMap<number, SparseVectorValue>,
  q: SparseVectorValue,
  k: number,
  allow: (seq: number) => boolean,
): SparseScored[] {
  const out: SparseScored[] = [];
  for (const [seq, d] of docs) {
    if (!allow(seq)) continue;
    let score: number | undefined;
    let at = 0;
    q.indices.forEach((term, i) => {
      while (at < d.indices.length && d.indices[at]! < term) at += 1;
      if (d.indices[at] === term) score = (score ?? 0) + q.values[i]! * Math.fround(d.values[at]!);
    });
    if (score !== undefined) out.push({ seq, score });
  }
  return out.sort((a, b) => b.score - a.score || a.seq - b.seq).slice(0, k);
}

function assertSame(got: readonly SparseScored[], expected: readonly SparseScored[], what: string): void {
  assert.deepEqual(
    got.map((r) => r.seq),
    expected.map((r) => r.seq),
    what,
  );
  got.forEach((r, i) => assert.ok(Math.abs(r.score - expected[i]!.score) < 1e-6, `${what}: score of ${r.seq}`));
}

for (const signed of [false, true]) {
  test(`the pruned top-k equals exhaustive scoring (${signed ? 'negative values too' : 'positive values'})`, () => {
    const lists = new SparseLists();
    const docs = new Map<number, SparseVectorValue>();
    for (let seq = 1; seq <= 3000; seq += 1) {
      // Seqs with gaps, as a store's are.
      const s = seq * 3 + (seq % 2);
      const v = vectorOf(2 + Math.floor(next() * 40), signed);
      docs.set(s, v);
      lists.add(s, v.indices, v.values);
    }
    const check = (label: string, allowed?: ReadonlySet<number>) => {
      for (let q = 0; q < 120; q += 1) {
        const query = vectorOf(1 + Math.floor(next() * 20), signed);
        const k = [1, 5, 10, 40, 300][q % 5]!;
        assertSame(
          sparseTopK(lists, query, k, allowed),
          exhaustive(docs, query, k, (seq) => allowed === undefined || allowed.has(seq)),
          `${label}, query ${q}, k ${k}`,
        );
      }
    };
    check('all documents');
    check('an allowed set', new Set([...docs.keys()].filter(() => next() < 0.3)));
    // Removals: skipped while they are tombstones, then dropped by the compaction a fifth of them triggers.
    const seqs = [...docs.keys()];
    for (const seq of seqs.slice(0, 200)) {
      lists.remove(seq);
      docs.delete(seq);
    }
    assert.ok(lists.removed.size > 0, 'tombstones before a compaction');
    check('with tombstones');
    for (const seq of seqs.filter((_s, i) => i >= 200 && i % 3 === 0)) {
      lists.remove(seq);
      docs.delete(seq);
    }
    assert.ok(lists.removed.size < seqs.length / 3, 'compacted');
    check('after a compaction');
    // New versions above every seq, as writes add them.
    for (let i = 1; i <= 300; i += 1) {
      const v = vectorOf(2 + Math.floor(next() * 40), signed);
      docs.set(20_000 + i, v);
      lists.add(20_000 + i, v.indices, v.values);
    }
    check('after additions');
  });
}

test('ties are broken by seq, and a term in no document or a zero weight are handled', () => {
  const lists = new SparseLists();
  for (let seq = 1; seq <= 50; seq += 1) lists.add(seq, [1, 2], [0.5, seq % 2 === 0 ? 0.25 : 0]);
  assert.deepEqual(
    sparseTopK(lists, { indices: [1, 9], values: [2, 5] }, 3),
    [1, 2, 3].map((seq) => ({ seq, score: 1 })),
  );
  assert.deepEqual(
    sparseTopK(lists, { indices: [2], values: [0] }, 2),
    [1, 2].map((seq) => ({ seq, score: 0 })),
  );
  assert.deepEqual(sparseTopK(lists, { indices: [7], values: [1] }, 2), []);
});
