import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { inputLimits, isGoDBError } from '@godb/contract';
import { openTestEngine } from '../../test-support/engine.js';
import { SparsePostings } from './sparse-posting-rows.js';
import { sparseTopK } from './sparse-top-k.js';

const dir = mkdtempSync(join(tmpdir(), 'godb-sparse-budget-'));
const engine = openTestEngine(dir);
after(() => {
  engine.close();
  rmSync(dir, { recursive: true, force: true });
});

test('a sparse query whose posting lists exceed the budget is refused naming its field, counted from its lists', () => {
  // Two terms: the first holds the whole budget, the second one posting more.
  const budget = inputLimits.sparseQueryPostings;
  const insert = engine.db.prepare(
    "INSERT INTO sparse_postings (tenant_id, collection, name, term, doc_seq, value) VALUES ('t', 'c', 's', ?, ?, 0.5)",
  );
  engine.db.transaction(() => {
    for (let seq = 1; seq <= budget; seq += 1) insert.run(1, seq);
    insert.run(2, 1);
  })();
  const postings = SparsePostings.of(engine.db);
  const lists = postings.lists('t', 'c', 's');
  const within = { indices: [2], values: [2] };
  postings.checkBudget(lists, 's', within, 'body.prefetch[0].sparse_vector');
  assert.deepEqual(sparseTopK(lists, within, 10), [{ seq: 1, score: 1 }]);
  assert.throws(
    () => postings.checkBudget(lists, 's', { indices: [1, 2], values: [1, 1] }, 'body.prefetch[0].sparse_vector'),
    (error: unknown) =>
      isGoDBError(error) &&
      error.code === 'VALIDATION_FAILED' &&
      error.field === 'body.prefetch[0].sparse_vector' &&
      error.message.includes(`${budget + 1} postings`) &&
      error.message.includes('use fewer or rarer terms'),
  );
});
