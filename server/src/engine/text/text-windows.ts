/**
 * Splitting long text into windows, shared by embedding (max_tokens / overlap / strategy) and document chunking
 * (chunk_size / chunk_overlap). A "token" here is a whitespace-separated word: model-independent, so the same
 * document chunks the same way whatever model embeds it.
 */
export type WindowStrategy = 'token' | 'sentence' | 'paragraph';

export interface TextWindow {
  readonly text: string;
  /** Number of words in the window. */
  readonly words: number;
  /** Character offsets in the source text. */
  readonly start: number;
  readonly end: number;
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

function windowOf(text: string, words: Span[], from: number, to: number): TextWindow {
  const start = words[from]!.start;
  const end = words[to - 1]!.end;
  return { text: text.slice(start, end), words: to - from, start, end };
}

/** Sliding windows of `size` words that overlap by `overlap` words. */
function tokenWindows(text: string, words: Span[], size: number, overlap: number): TextWindow[] {
  const step = Math.max(1, size - Math.min(overlap, size - 1));
  const windows: TextWindow[] = [];
  for (let from = 0; from < words.length; from += step) {
    const to = Math.min(words.length, from + size);
    windows.push(windowOf(text, words, from, to));
    if (to === words.length) break;
  }
  return windows;
}

/**
 * Splits `text` into windows of at most `size` words. `token` slides over words with `overlap`; `sentence` and
 * `paragraph` pack whole sentences or paragraphs and fall back to word windows for a unit longer than `size`.
 *
 * @example splitIntoWindows('a b c d e', { size: 2, overlap: 1 }).map((w) => w.text) // ['a b', 'b c', 'c d', 'd e']
 */
export function splitIntoWindows(
  text: string,
  options: { size: number; overlap: number; strategy?: WindowStrategy },
): TextWindow[] {
  const words = wordSpans(text);
  if (words.length === 0) return [];
  if (words.length <= options.size) return [windowOf(text, words, 0, words.length)];
  const strategy = options.strategy ?? 'token';
  if (strategy === 'token') return tokenWindows(text, words, options.size, options.overlap);

  const windows: TextWindow[] = [];
  let packStart = -1;
  let packWords = 0;
  let packEnd = 0;
  const flush = () => {
    if (packStart < 0) return;
    const inside = words.filter((w) => w.start >= packStart && w.end <= packEnd);
    windows.push(windowOf(text, inside, 0, inside.length));
    packStart = -1;
    packWords = 0;
  };
  for (const unit of unitSpans(text, strategy)) {
    const unitWords = words.filter((w) => w.start >= unit.start && w.end <= unit.end);
    if (unitWords.length === 0) continue;
    if (unitWords.length > options.size) {
      flush();
      windows.push(...tokenWindows(text, unitWords, options.size, options.overlap));
      continue;
    }
    if (packWords + unitWords.length > options.size) flush();
    if (packStart < 0) packStart = unitWords[0]!.start;
    packEnd = unitWords[unitWords.length - 1]!.end;
    packWords += unitWords.length;
  }
  flush();
  return windows;
}
