import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cosineAt, relevanceOf, scoreAt } from './relevance-scale.js';

// The float32 cosine of a unit vector with itself is often 0.99999994, not 1: threshold 1 ("only the same text")
// must keep it, under every method's score.
const float32Same = Math.fround(0.99999994);

test('a float32 cosine of the same text is relevance 1 and passes threshold 1', () => {
  for (const model of ['use-lite-512', 'glove-100', 'your-own-onnx']) {
    assert.ok(cosineAt(model, 1) <= float32Same, model);
    assert.ok(scoreAt(model, 'cosine', 1) <= float32Same, model);
    assert.ok(scoreAt(model, 'euclidean', 1) <= 1 / (1 + Math.sqrt(2 - 2 * float32Same)), model);
  }
  for (const model of ['use-lite-512', 'glove-100']) {
    assert.equal(relevanceOf(model, float32Same), 1, model);
    assert.ok(relevanceOf(model, 0.999) < 1, `${model}: a near but other text stays below 1`);
  }
});
