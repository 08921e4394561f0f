import { test } from 'node:test';
import assert from 'node:assert/strict';
import { idf, lengthNorm, termScore } from './bm25-score.js';
import { bm25fProximityScore } from './bm25f-proximity.js';
import { indexTerms } from './tokenize.js';

// BM25F + proximity (decision 0061) against its formula, worked by hand on small texts.

const stats = { chunks: 100, tokens: 1000 };
const df = (t: string) => ({ shock: 5, wave: 10 })[t] ?? 1;
const off = { titleWeight: 1, contentWeight: 1, proximity: 0, window: 5 };

test('without proximity and with weights 1 it is BM25 over the whole document', () => {
  const title = indexTerms('Shock tubes');
  const content = indexTerms('a wave and a shock wave');
  const norm = lengthNorm(stats, title.length + content.length);
  const expected = termScore(idf(stats, 5), 2, norm) + termScore(idf(stats, 10), 2, norm);
  assert.ok(Math.abs(bm25fProximityScore(title, content, ['shock', 'wave'], df, stats, off) - expected) < 1e-12);
});

test('a title weight counts a title occurrence that many times', () => {
  const title = indexTerms('shock');
  const content = indexTerms('nothing here at all');
  const norm = lengthNorm(stats, 5);
  const score = bm25fProximityScore(title, content, ['shock'], df, stats, { ...off, titleWeight: 3 });
  assert.ok(Math.abs(score - termScore(idf(stats, 5), 3, norm)) < 1e-12);
});

test('query words side by side score above the same words far apart', () => {
  const near = indexTerms('shock wave x x x x x x x x');
  const far = indexTerms('shock x x x x x x x x wave');
  const on = { ...off, proximity: 1, window: 5 };
  const nearScore = bm25fProximityScore([], near, ['shock', 'wave'], df, stats, on);
  const farScore = bm25fProximityScore([], far, ['shock', 'wave'], df, stats, on);
  assert.equal(farScore, bm25fProximityScore([], far, ['shock', 'wave'], df, stats, off));
  // Adjacent (d = 1): min idf × 1, saturated as a frequency is.
  const pair = idf(stats, 10);
  assert.ok(Math.abs(nearScore - farScore - (pair * 2.2) / (pair + 1.2)) < 1e-12);
});
