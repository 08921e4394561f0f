import type { TextMatch } from './fts-query.js';
import { fieldValue } from './filters.js';
import type { Hit } from './hit.js';
import type { Scope } from './scope.js';
import type { SearchCore } from './search-core.js';
import { selectiveMatch } from './selective-terms.js';
import type { TextPlan } from './text-filter-plan.js';
import { documentLanguage } from '../text/languages.js';
import { analyseMatch, defaultQueryAnalysis, type QueryAnalysis } from '../text/query-analysis.js';
import {
  expandedQuery,
  relevanceModel,
  type FeedbackDocument,
  type FeedbackExplained,
  type FeedbackOptions,
} from '../text/rm3-feedback.js';
import { indexTerms } from '../text/tokenize.js';

/**
 * A match query with RM3 pseudo-relevance feedback (docs/decisions/0074): BM25 ranks the query (textHits, under the
 * scope: the access rule and the filters), the best `docs` hits' own terms — their title and content analysed as they
 * were indexed, in each one's lang_code — give the expansion (text/rm3-feedback.ts), and BM25 ranks the weighted expanded
 * query again. The feedback documents are hits of the first pass, so no document the caller may not read, or that the
 * filters reject, lends a term. The ranker is called twice, as it is: nothing here knows how it ranks.
 *
 * While the tenant's in-memory index loads (FTS5 ranks meanwhile, and cannot weigh terms), the first ranking is the
 * answer, with a note.
 */
export function feedbackHits(
  core: SearchCore,
  scope: Scope,
  match: Extract<TextMatch, { words: readonly string[] }>,
  feedback: FeedbackOptions,
  options: { limit?: number; analysis?: QueryAnalysis; onPlan?: (plan: TextPlan) => void } = {},
): { hits: Hit[]; notes: string[]; explained: FeedbackExplained; terms: Set<string> } {
  const tenantId = scope.viewer.tenantId;
  const analysis = options.analysis ?? defaultQueryAnalysis;
  const analysed = analyseMatch(match, analysis).match;
  const kept = selectiveMatch(core, tenantId, analysed);
  const query = new Map<string, number>();
  for (const term of 'words' in kept ? kept.words : []) query.set(term, (query.get(term) ?? 0) + 1);
  const original = expandedQuery(query, [], 1);
  if (!core.text.ranked(tenantId)) {
    return {
      hits: core.textHits(scope, match, options),
      notes: ['feedback: not applied while the text index loads (the first ranking is answered)'],
      explained: { documents: [], terms: original },
      terms: new Set(query.keys()),
    };
  }
  const first = core.textHits(scope, match, {
    ...options,
    limit: Math.max(options.limit ?? feedback.docs, feedback.docs),
  });
  const top = first.slice(0, feedback.docs);
  if (top.length === 0)
    return { hits: first, notes: [], explained: { documents: [], terms: original }, terms: new Set() };
  const docs: FeedbackDocument[] = top.map((hit) => {
    const language = documentLanguage(fieldValue(hit.doc, 'lang_code') as string | null | undefined);
    return {
      terms: [...indexTerms(hit.doc.title, language), ...indexTerms(hit.doc.content, language)],
      score: hit.score,
      language,
    };
  });
  const expansion = relevanceModel(docs, feedback.terms, analysis.stopWords);
  const weighted = expandedQuery(query, expansion, feedback.original_weight);
  const hits = core.textHits(scope, match, {
    ...options,
    weights: new Map(weighted.map((t) => [t.term, t.weight])),
  });
  const added = expansion.filter(([t]) => !query.has(t)).length;
  return {
    hits,
    notes: [`feedback: ${added} terms added from the best ${top.length} documents (RM3)`],
    explained: { documents: top.map((h) => h.doc.id), terms: weighted },
    terms: new Set(weighted.map((t) => t.term)),
  };
}
