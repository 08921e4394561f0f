import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { loadUseLite, useLiteDimensions, type UseLiteModel } from './use-lite-runtime.js';

// The native runtime runs a translation of the TF.js graph; it must give TF.js's vectors, whatever the batch.
let native: UseLiteModel;
let wasm: UseLiteModel;

before(async () => {
  [native, wasm] = await Promise.all([loadUseLite('native'), loadUseLite('wasm')]);
});

const texts = [
  'hello world',
  'The boundary layer over a swept wing separates when the adverse pressure gradient grows.',
  'a',
  '',
  'Ünïcödé — and punctuation!? 42 numbers, e-mail@example.com',
  Array.from({ length: 300 }, (_v, i) => `word${i % 37}`).join(' '),
];

test('native and WASM runtimes give the same vectors and token counts', async () => {
  const [a, b] = await Promise.all([native.embedBatch(texts), wasm.embedBatch(texts)]);
  assert.equal(a.vectors.length, texts.length * useLiteDimensions);
  assert.deepEqual(a.tokenCounts, b.tokenCounts);
  let worst = 0;
  for (let i = 0; i < a.vectors.length; i += 1) worst = Math.max(worst, Math.abs(a.vectors[i]! - b.vectors[i]!));
  assert.ok(worst < 1e-5, `largest difference ${worst}`);
});

test('a text embeds the same alone and in a batch of texts of other lengths', async () => {
  const alone = await native.embedBatch([texts[1]!]);
  const batched = await native.embedBatch(texts);
  const row = batched.vectors.subarray(useLiteDimensions, 2 * useLiteDimensions);
  for (let d = 0; d < useLiteDimensions; d += 1) assert.ok(Math.abs(row[d]! - alone.vectors[d]!) < 1e-5);
});
