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

test('past one block it adds whole blocks, holding at most one block more than the live vectors', () => {
  const dims = 4;
  const exact = new ExactVectors(dims);
  const count = 30_000; // the first block (8,192 rows) and three more
  for (let key = 1; key <= count; key += 1) exact.set(key, key * 2, vector(key));
  const rowBytes = dims * 4 + 8 + 8 + 4; // vector, document, key, next slot of the document
  const mapBytes = 64; // a map entry for the key and one for its document (each has a document of its own here)
  assert.ok(exact.bytes >= count * (rowBytes + mapBytes));
  assert.ok(exact.bytes <= count * (rowBytes + mapBytes) + 8192 * rowBytes, `${exact.bytes} bytes for ${count} rows`);
  // Keys in every block read back their own vector, document and distance.
  const query = Float32Array.from([1, 0, 0, 0]);
  for (const key of [1, 8192, 8193, 16_385, count]) {
    assert.deepEqual(Array.from(exact.get(key)!.vector), [key, key + 1, key + 2, key + 3]);
    assert.equal(exact.docOf(key), key * 2);
    assert.equal(exact.distance(key, query, 'dot'), 1 - key);
    assert.equal(exact.distance(key, query, 'l2sq'), (key - 1) ** 2 + (key + 1) ** 2 + (key + 2) ** 2 + (key + 3) ** 2);
  }
  exact.delete(20_000);
  exact.set(count + 1, 7, vector(-1)); // reuses the freed slot in the third block
  assert.deepEqual(Array.from(exact.get(count + 1)!.vector), [-1, 0, 1, 2]);
  assert.equal(exact.get(20_000), undefined);
});

test("lists each document's keys through sets, replacements, deletes and reused slots", () => {
  const exact = new ExactVectors(4, 2);
  const keysOf = (doc: number) => {
    const keys: number[] = [];
    const sink = { keys: [] as number[], data: new Float32Array(0) };
    assert.equal(exact.keysOf(doc, keys), exact.gather(doc, sink));
    assert.deepEqual(keys, sink.keys, 'keysOf and gather list the same keys');
    if (keys.length === 0) return undefined;
    sink.keys.forEach((key, row) =>
      assert.equal(sink.data[row * 4], exact.get(key)!.vector[0], 'its vector, row by row'),
    );
    assert.deepEqual(
      sink.keys,
      [...sink.keys].sort((a, b) => a - b),
      "a document's keys in ascending order",
    );
    return sink.keys;
  };
  for (let key = 1; key <= 9; key += 1) exact.set(key, 100 + (key % 3), vector(key)); // docs 100, 101, 102
  assert.deepEqual(keysOf(100), [3, 6, 9]);
  assert.deepEqual(keysOf(101), [1, 4, 7]);
  exact.delete(6); // in the middle of 100's list
  exact.delete(9); // its first (the last set)
  assert.deepEqual(keysOf(100), [3]);
  exact.delete(3);
  assert.equal(keysOf(100), undefined);
  exact.set(4, 100, vector(40)); // moves from document 101 to 100, in place
  assert.deepEqual(keysOf(100), [4]);
  assert.deepEqual(keysOf(101), [1, 7]);
  exact.set(10, 103, vector(10)); // takes a freed slot
  assert.deepEqual(keysOf(103), [10]);
  assert.equal(exact.documents, 4);
  const into = new Float32Array(8);
  assert.equal(exact.copyInto(10, into, 4), true);
  assert.deepEqual(Array.from(into), [0, 0, 0, 0, 10, 11, 12, 13]);
  assert.equal(exact.copyInto(6, into, 0), false);
  assert.deepEqual(keysOf(102), [2, 5, 8]);
});
