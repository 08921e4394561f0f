import { test } from 'node:test';
import assert from 'node:assert/strict';
import { splitIntoWindows } from './text-windows.js';

test('short text is one window; blank text none', () => {
  assert.deepEqual(
    splitIntoWindows('  hello world ', { size: 5, overlap: 1 }).map((w) => w.text),
    ['hello world'],
  );
  assert.deepEqual(splitIntoWindows('   ', { size: 5, overlap: 1 }), []);
});

test('token windows slide with the overlap and cover every word', () => {
  const windows = splitIntoWindows('a b c d e f g', { size: 3, overlap: 1 });
  assert.deepEqual(
    windows.map((w) => w.text),
    ['a b c', 'c d e', 'e f g'],
  );
  assert.deepEqual(
    windows.map((w) => [w.start, w.end]),
    [
      [0, 5],
      [4, 9],
      [8, 13],
    ],
  );
});

test('an overlap as large as the window still advances', () => {
  assert.deepEqual(
    splitIntoWindows('a b c d', { size: 2, overlap: 5 }).map((w) => w.text),
    ['a b', 'b c', 'c d'],
  );
});

test('sentence windows pack whole sentences', () => {
  const text = 'One two three. Four five. Six seven eight nine. Ten.';
  assert.deepEqual(
    splitIntoWindows(text, { size: 5, overlap: 0, strategy: 'sentence' }).map((w) => w.text),
    ['One two three. Four five.', 'Six seven eight nine. Ten.'],
  );
});

test('paragraph windows pack paragraphs and split an oversized one by words', () => {
  const text = 'a b\nc d\n\ne f g h i j\n\nk';
  assert.deepEqual(
    splitIntoWindows(text, { size: 4, overlap: 0, strategy: 'paragraph' }).map((w) => w.text),
    ['a b\nc d', 'e f g h', 'i j', 'k'],
  );
});

test('character windows break between words, stay within size, and overlap by about `overlap` characters', () => {
  const text = 'alpha beta gamma delta epsilon zeta eta theta iota kappa';
  const windows = splitIntoWindows(text, { size: 20, overlap: 8, unit: 'chars' });
  for (const w of windows) assert.ok(w.text.length <= 20, w.text);
  assert.deepEqual(
    windows.map((w) => w.text),
    ['alpha beta gamma', 'gamma delta epsilon', 'epsilon zeta eta', 'zeta eta theta iota', 'iota kappa'],
  );
  assert.equal(windows.at(-1)?.end, text.length);
  // A word longer than the window is kept whole.
  assert.deepEqual(
    splitIntoWindows('a supercalifragilistic b', { size: 5, overlap: 0, unit: 'chars' }).map((w) => w.text),
    ['a', 'supercalifragilistic', 'b'],
  );
});

test('sentence windows: a word spanning two sentences is counted in neither; long texts keep every sentence', () => {
  assert.deepEqual(
    splitIntoWindows('See e.g. this one. And that', { size: 3, overlap: 0, strategy: 'sentence' }).map((w) => w.text),
    ['See e.g. this one.', 'And that'],
  );
  // 20,000 sentences (≈ 600 KB): each window is exactly one sentence, in order, none lost.
  const sentences = Array.from({ length: 20_000 }, (_, i) => `Sentence number ${i} ends here.`);
  const windows = splitIntoWindows(sentences.join(' '), { size: 40, overlap: 0, unit: 'chars', strategy: 'sentence' });
  assert.deepEqual(
    windows.map((w) => w.text),
    sentences,
  );
});

test(
  'a 4 MB text splits by paragraph into every paragraph (hang detector: the split was quadratic)',
  { timeout: 30_000 },
  () => {
    const paragraph = 'Heat flows from the wall into the boundary layer and out again.';
    const text = Array.from({ length: 64_000 }, () => paragraph).join('\n\n');
    const windows = splitIntoWindows(text, { size: 100, overlap: 0, unit: 'chars', strategy: 'paragraph' });
    assert.equal(windows.length, 64_000);
    assert.ok(windows.every((w) => w.text === paragraph));
    assert.equal(windows.at(-1)?.end, text.length);
  },
);
