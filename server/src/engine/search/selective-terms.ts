import { inputLimits } from '@godb/contract';
import { foldedWords, indexTerms } from '../text/tokenize.js';
import type { TextMatch } from './fts-query.js';
import type { SearchCore } from './search-core.js';

/**
 * The match with at most `max` distinct terms (words after analysis): beyond them, the most selective are kept —
 * those the fewest public chunks hold, terms no public chunk holds last (ties: the first in the query), counted over public chunks only so the choice
 * depends on nothing the caller may not read. A keyword query may be as long as an embedded one (4,096
 * characters); its cost is bounded here, by its terms, not by a refusal. The kept words keep their order and
 * repetitions. A phrase is kept whole (every word must match); a wildcard query's plain words are capped alongside
 * its patterns, which are bounded on their own.
 */
export function selectiveMatch(
  core: SearchCore,
  tenantId: string,
  match: TextMatch,
  max: number = inputLimits.keywordTerms,
): TextMatch {
  if ('phrase' in match) return match;
  if ('words' in match) {
    const keep = selectiveWords(core, tenantId, match.words, max);
    return keep ? { words: match.words.filter((w) => keep.has(termOf(w))) } : match;
  }
  const patterns = match.groups.filter((g) => g.length !== 1);
  const plain = match.groups.filter((g) => g.length === 1).map((g) => g[0]!);
  const keep = selectiveWords(core, tenantId, plain, Math.max(1, max - patterns.length));
  return keep ? { groups: match.groups.filter((g) => g.length !== 1 || keep.has(termOf(g[0]!))) } : match;
}

const termOf = (word: string) => indexTerms(word).join(' ');

/**
 * The terms of the `max` most selective distinct terms of `words`, or undefined when there are no more than `max`.
 * Frequencies are looked up by the words as the index holds them (folded, then stemmed by the lookup): the raw word
 * ("Télévision") is no term of it. A term no public chunk holds comes last: it matches nothing.
 */
function selectiveWords(core: SearchCore, tenantId: string, words: readonly string[], max: number) {
  const first = new Map<string, string[]>();
  for (const word of words) {
    const term = termOf(word);
    if (!first.has(term)) first.set(term, foldedWords(word));
  }
  if (first.size <= max) return undefined;
  const frequency = core.text.publicFrequencies(tenantId, [...first.values()].flat());
  const order = [...first.entries()].map(([term, folded], position) => ({
    term,
    // A word of several terms ("e-mail") matches at least as many chunks as its commonest.
    df: folded.reduce((most, w) => Math.max(most, frequency.get(w) ?? 0), 0),
    position,
  }));
  order.sort((a, b) => Number(a.df === 0) - Number(b.df === 0) || a.df - b.df || a.position - b.position);
  return new Set(order.slice(0, max).map((t) => t.term));
}
