import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { inputLimits, isGoDBError } from '@godb/contract';
import { openTestEngine } from '../../test-support/engine.js';
import { SparsePostings } from './sparse-posting-rows.js';

const dir = mkdtempSync(join(tmpdir(), 'godb-sparse-budget-'));
const engine = openTestEngine(dir);
after(() => {
  engine.close();
  rmSync(dir, { recursive: true, force: true });
});

test('a sparse query whose posting lists exceed the budget is refused naming its field, before any is read', () => {
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
  const within = postings.scores('t', 'c', 's', { indices: [2], values: [2] }, 'body.prefetch[0].sparse_vector');
  assert.deepEqual([...within], [[1, 1]]);
  assert.throws(
    () => postings.scores('t', 'c', 's', { indices: [1, 2], values: [1, 1] }, 'body.prefetch[0].sparse_vector'),
    (error: unknown) =>
      isGoDBError(error) &&
      error.code === 'VALIDATION_FAILED' &&
      error.field === 'body.prefetch[0].sparse_vector' &&
      error.message.includes(`${budget + 1} postings`) &&
      error.message.includes('use fewer or rarer terms'),
  );
});
