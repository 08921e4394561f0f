import { test } from 'node:test';
import assert from 'node:assert/strict';
import { boundedLevenshtein } from './levenshtein.js';

test('distances 0, 1, 2 and the bound', () => {
  assert.equal(boundedLevenshtein('layer', 'layer', 2), 0);
  assert.equal(boundedLevenshtein('boundery', 'boundary', 2), 1);
  assert.equal(boundedLevenshtein('layr', 'layer', 2), 1);
  assert.equal(boundedLevenshtein('flwo', 'flow', 2), 2);
  assert.equal(boundedLevenshtein('kitten', 'sitting', 2), 3);
  assert.equal(boundedLevenshtein('a', 'abcdef', 2), 3);
});
