import assert from 'node:assert/strict';
import { test } from 'node:test';
import { seededRandom } from '../../test-support/fuzz-inputs.js';
import { accumulatedTopK, accumulates } from './sparse-accumulate.js';
import { SparseLists } from './sparse-lists.js';
import { maxScoreTopK, sparseTopK } from './sparse-top-k.js';

// Decision 0075: the term-at-a-time top-k (seqs dense enough) and MaxScore (seqs spread thin) answer alike — the same
// documents in the same order with the same float sums — with removals and an allowed set.

const next = seededRandom(7575);

function listsOf(count: number, gap: number): SparseLists {
  const lists = new SparseLists();
  for (let i = 1; i <= count; i += 1) {
    const terms = new Set<number>();
    while (terms.size < 1 + Math.floor(next() * 20)) terms.add(Math.floor(300 ** next()) - 1);
    const indices = [...terms].sort((a, b) => a - b);
    lists.add(
      i * gap,
      indices,
      indices.map(() => next() * 1.4 - 0.3),
    );
  }
  return lists;
}

for (const gap of [1, 5_000]) {
  test(`term at a time and MaxScore answer alike (seqs ${gap} apart)`, () => {
    const lists = listsOf(2_000, gap);
    assert.equal(accumulates(lists), gap === 1, 'seqs spread thin are ranked by MaxScore');
    for (let i = 1; i <= 40; i += 1) lists.remove(i * 7 * gap);
    const allowed = new Set<number>();
    for (let i = 1; i <= 2_000; i += 1) if (next() < 0.5) allowed.add(i * gap);
    for (let q = 0; q < 60; q += 1) {
      const terms = [...new Set(Array.from({ length: 1 + (q % 12) }, () => Math.floor(300 ** next()) - 1))];
      const query = { indices: terms.sort((a, b) => a - b), values: terms.map(() => next() * 2 - 0.5) };
      const k = [1, 10, 40, 500][q % 4]!;
      const filter = q % 3 === 0 ? allowed : undefined;
      const expected = maxScoreTopK(lists, query, k, filter);
      assert.deepEqual(accumulatedTopK(lists, query, k, filter), expected, `query ${q}`);
      assert.deepEqual(sparseTopK(lists, query, k, filter), expected, `query ${q}`);
    }
  });
}
