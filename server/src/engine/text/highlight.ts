import type { AnalysisLanguage } from '@godb/contract';
import { indexTerms } from './tokenize.js';

/**
 * Passages a hit shows at most, about how many characters each holds, and how many characters of a chunk are looked
 * at (as Elasticsearch's max_analyzed_offset): a search of 1,000 results of three 64 KiB chunks each would otherwise
 * analyse 200 MB of text.
 */
export const highlightLimits = { passages: 3, width: 160, analysed: 10_000 } as const;

/** A word of a text and where it is (characters of the original text). */
interface Word {
  readonly start: number;
  readonly end: number;
  readonly terms: readonly string[];
}

// Words as the analysis sees them, marks kept inside (a decomposed "é" stays one word).
const wordPattern = /[\p{L}\p{N}\p{Co}][\p{L}\p{N}\p{Co}\p{M}]*/gu;

const escapes: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
/** Text made safe to place in HTML (element content or a quoted attribute). */
export const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => escapes[c]!);

/**
 * The passages of `text` where any of `terms` (index terms, see tokenize.ts) occurs, analysed in `language` (the
 * document's): each about `width` characters cut at word boundaries, starting shortly before its first match, with
 * every matching word marked `<em>…</em>` and the rest HTML-escaped. Scored by the distinct terms they hold, then by
 * their matches; best first, at most `max`. Only the first `highlightLimits.analysed` characters are looked at.
 *
 * @example highlightPassages('Horses & <b>chevaux</b>', new Set(['cheval']), 'fr') // ['Horses &amp; &lt;b&gt;<em>chevaux</em>&lt;/b&gt;']
 */
export function highlightPassages(
  text: string,
  terms: ReadonlySet<string>,
  language: AnalysisLanguage,
  max: number = highlightLimits.passages,
  width: number = highlightLimits.width,
): { passage: string; score: number }[] {
  if (terms.size === 0 || max <= 0) return [];
  const words: Word[] = [];
  const scanned = text.length > highlightLimits.analysed ? text.slice(0, highlightLimits.analysed) : text;
  for (const m of scanned.matchAll(wordPattern)) {
    words.push({ start: m.index, end: m.index + m[0].length, terms: indexTerms(m[0], language) });
  }
  const matched = words.map((w) => w.terms.some((t) => terms.has(t)));
  const passages: { from: number; to: number; score: number }[] = [];
  let i = matched.indexOf(true);
  while (i >= 0 && passages.length < max * 4) {
    // Start a few words before the match, then take whole words up to the width.
    let first = i;
    while (first > 0 && words[i]!.start - words[first - 1]!.start <= width / 5) first -= 1;
    let last = i;
    while (last + 1 < words.length && words[last + 1]!.end - words[first]!.start <= width) last += 1;
    const distinct = new Set<string>();
    let count = 0;
    for (let k = first; k <= last; k += 1) {
      if (!matched[k]) continue;
      count += 1;
      for (const t of words[k]!.terms) if (terms.has(t)) distinct.add(t);
    }
    passages.push({ from: first, to: last, score: distinct.size * 1000 + count });
    const next = matched.indexOf(true, last + 1);
    i = next;
  }
  return passages
    .map((p, order) => ({ ...p, order }))
    .sort((a, b) => b.score - a.score || a.order - b.order)
    .slice(0, max)
    .map((p) => ({ passage: marked(text, words, matched, p.from, p.to), score: p.score }));
}

/** Words `from`..`to` of the text (and what lies between them), the matching ones marked, the rest escaped. */
function marked(text: string, words: readonly Word[], matched: readonly boolean[], from: number, to: number): string {
  let out = '';
  let at = words[from]!.start;
  for (let k = from; k <= to; k += 1) {
    const w = words[k]!;
    out += escapeHtml(text.slice(at, w.start));
    const word = escapeHtml(text.slice(w.start, w.end));
    out += matched[k] ? `<em>${word}</em>` : word;
    at = w.end;
  }
  // The punctuation closing the last word ("Haus." keeps its full stop), up to the next space or word.
  const next = from <= to && to + 1 < words.length ? words[to + 1]!.start : text.length;
  const tail = /^[^\s]*/u.exec(text.slice(at, next))![0];
  return out + escapeHtml(tail);
}

/**
 * A hit's highlights: the best passages over its shown chunks' contents (best chunk first breaks ties), at most
 * `max`.
 */
export function hitHighlights(
  contents: readonly string[],
  terms: ReadonlySet<string>,
  language: AnalysisLanguage,
  max: number = highlightLimits.passages,
): string[] {
  return (
    contents
      .flatMap((content, chunk) => highlightPassages(content, terms, language, max).map((p) => ({ ...p, chunk })))
      .sort((a, b) => b.score - a.score || a.chunk - b.chunk)
      .map((p) => p.passage)
      // Neighbouring chunks overlap: a passage they share is shown once.
      .filter((passage, i, all) => all.indexOf(passage) === i)
      .slice(0, max)
  );
}
