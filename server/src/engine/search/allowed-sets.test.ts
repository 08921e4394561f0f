import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { openTestEngine, type TestEngine } from '../../test-support/engine.js';
import { prepareDocument } from '../documents/prepare.js';

// A filtered search gathers the float32 copies of the vectors its filter allows, once, and keeps them. A document
// whose vector the store holds but the copies do not yet (the index is told just after the commit) must be gathered
// when its vector arrives, not skipped for good.
const tenantId = '00000000-0000-4000-8000-0000000000d1';
const owner = { tenantId, userId: 'owner', groups: [] as string[] };
const model = 'use-lite-512';
const axis = (i: number) => Float32Array.from({ length: 512 }, (_v, d) => (d === i ? 1 : 0));

let engine: TestEngine;
before(() => {
  engine = openTestEngine(':memory:', model);
});
after(() => engine.close());

function write(id: string, i: number): void {
  const doc = prepareDocument({ id, title: id, embedding_options: { enabled: false } }, 'owner', 'x');
  engine.commands.write(
    owner,
    [{ ...doc, model, chunks: [{ content: id, start: 0, end: 0, vector: axis(i) }] }],
    () => 'x',
  );
}

test('a vector not in the copies yet is gathered once it is, not skipped for good', async () => {
  for (let i = 0; i < 5; i += 1) write(`d${i}`, i);
  await engine.vectors.ready(tenantId, model, 512);
  const copies = engine.vectors.exactVectors(tenantId, model);
  assert.ok(copies, 'the index keeps float32 copies');
  // Built the second time the same (empty) filter is seen at one epoch.
  engine.search.allowed.get(tenantId, undefined, undefined);
  const set = engine.search.allowed.get(tenantId, undefined, undefined);
  assert.ok(set, 'the allowed set is kept');
  // The last document's vector is stored, but the copies do not hold it yet when the set first looks.
  const last = Math.max(...copies.keys());
  const held = copies.get(last)!;
  const saved = { doc: held.doc, vector: held.vector.slice() };
  copies.delete(last);
  assert.equal(set.keys(model, copies).length, 4);
  assert.equal(set.vectors(model, copies).keys.length, 4);
  copies.set(last, saved.doc, saved.vector);
  const gathered = set.vectors(model, copies);
  assert.equal(gathered.keys.length, 5);
  assert.equal(gathered.keys[4], last, 'the waiting document joins once its vector is held');
  assert.deepEqual(
    Array.from(gathered.matrix.subarray(4 * 512, 5 * 512)),
    Array.from(saved.vector),
    'its vector is gathered with it',
  );
  assert.deepEqual([...set.keys(model, copies)].sort(), [...copies.keys()].sort());
});
