import { test } from 'node:test';
import assert from 'node:assert/strict';
import { kmeans1d, quantize } from './quantize.js';

/** A deterministic pseudo-random unit-scale vector (LCG), like a normalised embedding. */
function vector(dims: number, seed = 7): Float32Array {
  let state = seed;
  const out = new Float32Array(dims);
  for (let i = 0; i < dims; i += 1) {
    state = (state * 1664525 + 1013904223) >>> 0;
    out[i] = (state / 2 ** 32 - 0.5) * 0.2;
  }
  return out;
}

test('linear: codes span the levels and the error is within half a step', () => {
  const v = vector(512);
  for (const bits of [4, 8, 16]) {
    const q = quantize(v, 'linear', bits);
    const step = (q.maxVal - q.minVal) / (2 ** bits - 1);
    assert.equal(Math.min(...q.codes), 0);
    assert.equal(Math.max(...q.codes), 2 ** bits - 1);
    for (let i = 0; i < v.length; i += 1) assert.ok(Math.abs(v[i]! - q.reconstruction[i]!) <= step / 2 + 1e-7);
    assert.ok(q.rmse <= step / 2);
    assert.equal(q.compressionRatio, 32 / bits);
  }
  assert.deepEqual(quantize(Float32Array.of(0, 0.5, 1), 'linear', 8).codes, [0, 128, 255]);
});

test('linear: more bits, less error', () => {
  const v = vector(512);
  const e4 = quantize(v, 'linear', 4).rmse;
  const e8 = quantize(v, 'linear', 8).rmse;
  const e16 = quantize(v, 'linear', 16).rmse;
  assert.ok(e4 > e8 && e8 > e16, `${e4} ${e8} ${e16}`);
});

test('kmeans: at most min(kmeans_clusters, 2^bits) centroids, and no worse than linear at the same bits', () => {
  const v = vector(512);
  const q4 = quantize(v, 'kmeans', 4, 256);
  assert.ok((q4.codebook ?? []).length <= 16);
  assert.ok(Math.max(...q4.codes) < 16);
  assert.ok(q4.rmse <= quantize(v, 'linear', 4).rmse);
  const few = quantize(v, 'kmeans', 8, 8);
  assert.ok((few.codebook ?? []).length <= 8);
  assert.equal(q4.compressionRatio, 8);
  assert.deepEqual(
    kmeans1d(Float32Array.of(1, 1.1, 0.9, 5, 5.1, 4.9), 2).map((c) => Math.round(c * 10) / 10),
    [1, 5],
  );
});

test('binary: sign bits, 32× compression, reconstruction keeps the signs', () => {
  const v = vector(256);
  const q = quantize(v, 'binary', 8);
  assert.equal(q.bitWidth, 1);
  assert.equal(q.compressionRatio, 32);
  for (let i = 0; i < v.length; i += 1) {
    assert.equal(q.codes[i], v[i]! >= 0 ? 1 : 0);
    assert.equal(Math.sign(q.reconstruction[i]!), v[i]! >= 0 ? 1 : -1);
  }
});

test('a constant vector quantizes without dividing by zero', () => {
  const q = quantize(new Float32Array(8).fill(0.25), 'linear', 8);
  assert.ok(q.codes.every((c) => c === 0));
  assert.equal(q.rmse, 0);
});
