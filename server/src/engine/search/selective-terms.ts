import { inputLimits } from '@godb/contract';
import { indexTerms } from '../text/tokenize.js';
import type { TextMatch } from './fts-query.js';
import type { SearchCore } from './search-core.js';

/**
 * The match with at most `max` distinct terms (words after analysis): beyond them, the most selective are kept —
 * those the fewest public chunks hold (ties: the first in the query), counted over public chunks only so the choice
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

/** The terms of the `max` most selective distinct terms of `words`, or undefined when there are no more than `max`. */
function selectiveWords(core: SearchCore, tenantId: string, words: readonly string[], max: number) {
  const first = new Map<string, string>();
  for (const word of words) {
    const term = termOf(word);
    if (!first.has(term)) first.set(term, word);
  }
  if (first.size <= max) return undefined;
  const frequency = core.text.publicFrequencies(tenantId, first.values());
  const order = [...first.entries()].map(([term, word], position) => ({
    term,
    df: frequency.get(word) ?? 0,
    position,
  }));
  order.sort((a, b) => a.df - b.df || a.position - b.position);
  return new Set(order.slice(0, max).map((t) => t.term));
}
