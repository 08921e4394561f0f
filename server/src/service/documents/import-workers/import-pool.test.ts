import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isGoDBError } from '@godb/contract';
import { ImportPool, importThreadsOf } from './import-pool.js';

// Issue #40: the import pool answers the slices under way when it is closed, then refuses new ones.

const line = (number: number) => ({
  number,
  text: JSON.stringify({ id: `p-${number}`, title: `Line ${number}`, content: 'some words to chunk' }),
});

test('close answers the slices under way, then refuses more with SHUTTING_DOWN', async () => {
  const pool = new ImportPool(2);
  const replies = [pool.prepare([line(1), line(2)], 'owner'), pool.prepare([line(3)], 'owner')];
  await pool.close();
  const answered = await Promise.all(replies);
  assert.deepEqual(
    answered.map((r) => r.results.map((x) => ('doc' in x ? x.doc.id : null))),
    [['p-1', 'p-2'], ['p-3']],
  );
  await assert.rejects(pool.prepare([line(4)], 'owner'), (e) => isGoDBError(e) && e.code === 'SHUTTING_DOWN');
});

test('IMPORT_THREADS: -1 is one per core beyond the first, none on two cores; other values as they are', () => {
  assert.equal(importThreadsOf(-1, 8), 7);
  assert.equal(importThreadsOf(-1, 3), 2);
  assert.equal(importThreadsOf(-1, 2), 0);
  assert.equal(importThreadsOf(-1, 1), 0);
  assert.equal(importThreadsOf(0, 8), 0);
  assert.equal(importThreadsOf(3, 2), 3);
});
