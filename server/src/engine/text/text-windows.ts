/**
 * Splitting long text into windows, shared by embedding (max_tokens / overlap / strategy, measured in words) and
 * document chunking (chunk_size / chunk_overlap, measured in characters). Windows always break between words.
 */
export type WindowStrategy = 'token' | 'sentence' | 'paragraph';
export type WindowUnit = 'words' | 'chars';

export interface TextWindow {
  readonly text: string;
  /** Number of words in the window. */
  readonly words: number;
  /** Character offsets in the source text. */
  readonly start: number;
  readonly end: number;
}

export interface WindowOptions {
  /** Largest window, in `unit`s (a single word longer than that is kept whole). */
  readonly size: number;
  /** How much consecutive windows share, in `unit`s. */
  readonly overlap: number;
  readonly strategy?: WindowStrategy;
  readonly unit?: WindowUnit;
}

interface Span {
  readonly start: number;
  readonly end: number;
}

function wordSpans(text: string): Span[] {
  return Array.from(text.matchAll(/\S+/g), (m) => ({ start: m.index, end: m.index + m[0].length }));
}

function unitSpans(text: string, strategy: Exclude<WindowStrategy, 'token'>): Span[] {
  const pattern = strategy === 'sentence' ? /[^.!?\n]+(?:[.!?]+|\n|$)/g : /[^\n](?:[^\n]|\n(?!\s*\n))*/g;
  return Array.from(text.matchAll(pattern), (m) => ({ start: m.index, end: m.index + m[0].length })).filter(
    (s) => text.slice(s.start, s.end).trim() !== '',
  );
}

/** The size of words[from..to) in the unit. */
const measure = (words: readonly Span[], from: number, to: number, unit: WindowUnit) =>
  unit === 'words' ? to - from : words[to - 1]!.end - words[from]!.start;

function windowOf(text: string, words: readonly Span[], from: number, to: number): TextWindow {
  const start = words[from]!.start;
  const end = words[to - 1]!.end;
  return { text: text.slice(start, end), words: to - from, start, end };
}

/** Sliding windows over words: each as large as fits in `size`, the next starting `overlap` back from its end. */
function slidingWindows(text: string, words: readonly Span[], options: WindowOptions, unit: WindowUnit): TextWindow[] {
  const windows: TextWindow[] = [];
  let from = 0;
  while (from < words.length) {
    let to = from + 1;
    while (to < words.length && measure(words, from, to + 1, unit) <= options.size) to += 1;
    windows.push(windowOf(text, words, from, to));
    if (to === words.length) break;
    let next = to;
    while (next - 1 > from && measure(words, next - 1, to, unit) <= options.overlap) next -= 1;
    from = next;
  }
  return windows;
}

/**
 * Splits `text` into windows of at most `size` (words or characters). `token` slides over words with `overlap`;
 * `sentence` and `paragraph` pack whole sentences or paragraphs and slide over a unit longer than `size`.
 *
 * @example splitIntoWindows('a b c d e', { size: 2, overlap: 1 }).map((w) => w.text) // ['a b', 'b c', 'c d', 'd e']
 */
export function splitIntoWindows(text: string, options: WindowOptions): TextWindow[] {
  const unit = options.unit ?? 'words';
  const words = wordSpans(text);
  if (words.length === 0) return [];
  if (measure(words, 0, words.length, unit) <= options.size) return [windowOf(text, words, 0, words.length)];
  const strategy = options.strategy ?? 'token';
  if (strategy === 'token') return slidingWindows(text, words, options, unit);

  const windows: TextWindow[] = [];
  let pack: Span[] = [];
  const flush = () => {
    if (pack.length > 0) windows.push(windowOf(text, pack, 0, pack.length));
    pack = [];
  };
  // Units and words are both in text order, so one cursor walks the words once: linear in the text (a filter of
  // every word per unit made a 1 MB document take seconds).
  let cursor = 0;
  for (const unitSpan of unitSpans(text, strategy)) {
    while (cursor < words.length && words[cursor]!.start < unitSpan.start) cursor += 1;
    const first = cursor;
    while (cursor < words.length && words[cursor]!.end <= unitSpan.end) cursor += 1;
    if (cursor === first) continue;
    const unitWords = words.slice(first, cursor);
    if (measure(unitWords, 0, unitWords.length, unit) > options.size) {
      flush();
      for (const w of slidingWindows(text, unitWords, options, unit)) windows.push(w);
      continue;
    }
    const packed =
      unit === 'words' ? pack.length + unitWords.length : unitWords[unitWords.length - 1]!.end - (pack[0]?.start ?? 0);
    if (pack.length > 0 && packed > options.size) flush();
    for (const w of unitWords) pack.push(w);
  }
  flush();
  return windows;
}
