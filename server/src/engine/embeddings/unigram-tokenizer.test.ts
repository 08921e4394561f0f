import { test } from 'node:test';
import assert from 'node:assert/strict';
import { UnigramTokenizer } from './unigram-tokenizer.js';

const vocabulary: [string, number][] = [
  ['<unk>', 0],
  ['<s>', 0],
  ['</s>', 0],
  ['x1', 0],
  ['x2', 0],
  ['x3', 0],
  ['▁', -2],
  ['▁the', -1],
  ['▁cat', -3],
  ['▁ca', -4],
  ['t', -4],
  ['s', -3],
  ['▁sat', -3],
  ['a', -5],
  ['c', -5],
];

test('chooses the most probable segmentation', () => {
  const tokenizer = new UnigramTokenizer(vocabulary);
  // "▁cat" (-3) beats "▁ca" + "t" (-8).
  assert.deepEqual(tokenizer.encode('the cat'), [7, 8]);
  assert.deepEqual(tokenizer.encode('cats'), [8, 11]);
});

test('normalises spaces and unicode, and handles empty text', () => {
  const tokenizer = new UnigramTokenizer(vocabulary);
  assert.deepEqual(tokenizer.encode('  the   cat  '), tokenizer.encode('the cat'));
  assert.equal(UnigramTokenizer.normalize('ﬁ'), '▁fi');
  assert.deepEqual(tokenizer.encode(''), []);
  assert.deepEqual(tokenizer.encode('   '), []);
});

test('unknown characters become one unknown token per run and never reserved pieces', () => {
  const tokenizer = new UnigramTokenizer(vocabulary);
  assert.deepEqual(tokenizer.encode('the zzz'), [7, 6, 0]);
  assert.deepEqual(tokenizer.encode('x1'), [6, 0]);
});
