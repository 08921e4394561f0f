import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ExactVectors } from './exact-vectors.js';

const vector = (x: number) => Float32Array.from({ length: 4 }, (_v, i) => x + i);

test('holds vectors by key, grows, and reuses the slots of removed keys', () => {
  const exact = new ExactVectors(4, 2);
  for (let key = 1; key <= 5; key += 1) exact.set(key, 100 + key, vector(key * 10));
  assert.equal(exact.size, 5);
  assert.deepEqual(Array.from(exact.get(3)!.vector), [30, 31, 32, 33]);
  assert.equal(exact.get(3)!.doc, 103);
  const bytes = exact.bytes;
  exact.delete(3);
  assert.equal(exact.get(3), undefined);
  exact.set(6, 106, vector(60)); // takes the freed slot: no growth
  assert.equal(exact.bytes, bytes);
  assert.deepEqual(Array.from(exact.get(6)!.vector), [60, 61, 62, 63]);
  exact.set(6, 107, vector(70)); // a key set again is replaced in place
  assert.equal(exact.size, 5);
  assert.equal(exact.get(6)!.doc, 107);
  for (const key of [1, 2, 4, 5]) assert.equal(exact.get(key)!.vector[0], key * 10);
});
