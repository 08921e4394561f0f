import { createError } from '@godb/contract';
import { analyseMatch, defaultQueryAnalysis, type QueryAnalysis } from '../text/query-analysis.js';
import { textMatch, wildcardQuery } from './fts-query.js';
import { byPublicFrequency, maxTermChecks, readableTerms } from './readable-terms.js';
import type { GivenStats } from '../text/bm25-score.js';
import type { Hit } from './hit.js';
import type { TextPlan } from './text-filter-plan.js';
import type { Scope } from './scope.js';
import { feedbackHits } from './feedback-hits.js';
import type { FeedbackExplained, FeedbackOptions } from '../text/rm3-feedback.js';
import type { SearchCore } from './search-core.js';

export type TextQueryType = 'match' | 'phrase' | 'wildcard';

/**
 * Words of the tenant's vocabulary matching a GLOB pattern that occur in documents the caller may read (at most
 * `limit`), those the most public chunks hold first (by their stems, see TextIndex.publicFrequencies): an order
 * that nothing the caller may not read can change. Of the matching words, the first 1,000 in that order are
 * checked for access.
 */
export function expandPattern(core: SearchCore, scope: Scope, pattern: string, limit: number): string[] {
  const tenantId = scope.viewer.tenantId;
  const matching = core.text.vocabulary(tenantId, { pattern });
  return readableTerms(core, scope, byPublicFrequency(core, tenantId, matching).slice(0, maxTermChecks), limit);
}

/** A wildcard query's expansions: its groups (none when a pattern expands to no word) and their notes. */
export interface WildcardExpansion {
  readonly groups: readonly (readonly string[])[];
  readonly notes: readonly string[];
}

/** A wildcard query expanded by `expand` (this node's vocabulary, or the words a partitioned search chose). */
export function wildcardExpansion(
  query: string,
  expand: (pattern: string, max: number) => string[],
): { match: { groups: readonly (readonly string[])[] } | undefined; notes: string[] } {
  const { match, expansions } = wildcardQuery(query, expand);
  const notes = Object.entries(expansions).map(
    ([p, words]) =>
      `${p} → ${words.length > 0 ? words.slice(0, 10).join(', ') : 'no word'}${words.length > 10 ? ', …' : ''}`,
  );
  return { match: match && 'groups' in match ? { groups: match.groups } : undefined, notes };
}

/**
 * Full-text search, ranked by BM25. `match`: any of the words; `phrase`: the words in order; `wildcard`: `*` and
 * `?` inside words, expanded against the tenant's vocabulary. The words are analysed as `analysis` says (language,
 * stop words, synonyms; see text/query-analysis.ts): the notes say what it left out and added, `terms` are the index
 * terms the hits may hold (for highlighting).
 */
export function textSearch(
  core: SearchCore,
  scope: Scope,
  query: string,
  type: TextQueryType,
  limit?: number,
  analysis: QueryAnalysis = defaultQueryAnalysis,
  onPlan?: (plan: TextPlan) => void,
  stats?: GivenStats,
  expanded?: WildcardExpansion,
): { hits: Hit[]; notes: string[]; terms: Set<string> } {
  if (query.trim() === '') throw createError('QUERY_REQUIRED', {}, { field: 'body.query' });
  const options = { ...(limit && { limit }), analysis, ...(onPlan && { onPlan }), ...(stats && { stats }) };
  if (type === 'wildcard') {
    // Given statistics rank the expansions the asking node chose over every shard, never this node's own.
    if (stats && !expanded) throw new TypeError('a wildcard search with given statistics needs its expansions');
    const found = expanded
      ? { match: expanded.groups.length > 0 ? { groups: expanded.groups } : undefined, notes: [...expanded.notes] }
      : wildcardExpansion(query, (pattern, max) => expandPattern(core, scope, pattern, max));
    const { match, notes } = found;
    if (!match) return { hits: [], notes, terms: new Set() };
    const analysed = analyseMatch(match, analysis);
    return { hits: core.textHits(scope, match, options), notes: [...notes, ...analysed.notes], terms: analysed.terms };
  }
  const match = textMatch(query, type);
  if (!match) return { hits: [], notes: [], terms: new Set() };
  const analysed = analyseMatch(match, analysis);
  return { hits: core.textHits(scope, match, options), notes: analysed.notes, terms: analysed.terms };
}

/**
 * A match query with RM3 feedback (feedback-hits.ts): a phrase or wildcard query cannot take it (its expansion
 * would be a query of any words), so it is refused naming body.feedback.
 */
export function feedbackSearch(
  core: SearchCore,
  scope: Scope,
  query: string,
  type: TextQueryType,
  limit: number | undefined,
  analysis: QueryAnalysis,
  onPlan: ((plan: TextPlan) => void) | undefined,
  feedback: FeedbackOptions,
): { hits: Hit[]; notes: string[]; terms: Set<string>; explained: FeedbackExplained | undefined } {
  if (query.trim() === '') throw createError('QUERY_REQUIRED', {}, { field: 'body.query' });
  if (type !== 'match')
    throw createError(
      'VALIDATION_FAILED',
      {
        detail: `body.feedback needs query_type match (it is ${type}): feedback expands the query into a query of any of its words.`,
      },
      { field: 'body.feedback' },
    );
  const match = textMatch(query, 'match');
  if (!match || !('words' in match)) return { hits: [], notes: [], terms: new Set(), explained: undefined };
  const options = { ...(limit && { limit }), analysis, ...(onPlan && { onPlan }) };
  const found = feedbackHits(core, scope, match, feedback, options);
  const analysed = analyseMatch(match, analysis);
  return {
    hits: found.hits,
    notes: [...analysed.notes, ...found.notes],
    terms: found.terms,
    explained: found.explained,
  };
}
