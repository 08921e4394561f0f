import { inputLimits } from '@godb/contract';
import type { TextMatch } from './fts-query.js';
import type { SearchCore } from './search-core.js';

/**
 * The match (of index terms, see textHits) with at most `max` distinct terms: beyond them, the most selective are kept —
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
    return keep ? { words: match.words.filter((w) => keep.has(w)) } : match;
  }
  const patterns = match.groups.filter((g) => g.length !== 1);
  const plain = match.groups.filter((g) => g.length === 1).map((g) => g[0]!);
  const keep = selectiveWords(core, tenantId, plain, Math.max(1, max - patterns.length));
  return keep ? { groups: match.groups.filter((g) => g.length !== 1 || keep.has(g[0]!)) } : match;
}

/**
 * The `max` most selective distinct terms of `terms`, or undefined when there are no more than `max`. A term no
 * public chunk holds comes last: it matches nothing.
 */
function selectiveWords(core: SearchCore, tenantId: string, terms: readonly string[], max: number) {
  const first = [...new Set(terms)];
  if (first.length <= max) return undefined;
  const frequency = core.text.publicFrequencies(tenantId, first, 'terms');
  const order = first.map((term, position) => ({ term, df: frequency.get(term) ?? 0, position }));
  order.sort((a, b) => Number(a.df === 0) - Number(b.df === 0) || a.df - b.df || a.position - b.position);
  return new Set(order.slice(0, max).map((t) => t.term));
}
