import type { QueryAnalysis } from '../text/query-analysis.js';
import { withHighlights } from './highlights.js';
import type { Scope } from './scope.js';
import type { SearchCore } from './search-core.js';
import { answerPlan, type TextPlan } from './text-filter-plan.js';
import { feedbackSearch, textSearch, type TextQueryType, type WildcardExpansion } from './text-search.js';
import type { GivenStats } from '../text/bm25-score.js';
import type { FeedbackOptions } from '../text/rm3-feedback.js';
import { finishAnswer, type SearchAnswer } from './vector-answer.js';

/** A text search as Searches.text takes it (the query's analysis resolved by the caller, see Searches.#analysis). */
export interface TextRequest {
  readonly query: string;
  readonly type: TextQueryType;
  readonly limit: number;
  readonly explain?: boolean | undefined;
  /** Answer each result's `highlights`. */
  readonly highlight?: boolean | undefined;
  /** RM3 pseudo-relevance feedback (decision 0074): rank again with the best hits' terms. */
  readonly feedback?: FeedbackOptions | undefined;
  /** A wildcard's expansions chosen over every shard by a partitioned search's asking node (decision 0093). */
  readonly expanded?: WildcardExpansion | undefined;
}

/**
 * The finished answer of a full-text search ranked by BM25 (match, phrase or wildcard): the same code on the main
 * thread (Searches.text) and on a search worker (search-pool/), so both answer the same ids and scores.
 */
export function textAnswer(
  core: SearchCore,
  scope: Scope,
  q: TextRequest,
  analysis: QueryAnalysis,
  elapsed: () => number,
  stats?: GivenStats,
): SearchAnswer {
  let plan: TextPlan = { filter: scope.filters ? 'per-candidate' : 'none', path: 'text' };
  const onPlan = (p: TextPlan) => {
    plan = p;
  };
  const { hits, notes, terms, explained } = q.feedback
    ? feedbackSearch(core, scope, q.query, q.type, q.limit, analysis, onPlan, q.feedback)
    : {
        ...textSearch(core, scope, q.query, q.type, q.limit, analysis, onPlan, stats, q.expanded),
        explained: undefined,
      };
  const answer = finishAnswer(core.rows, elapsed, hits, q.limit, {
    notes,
    only: scope.counted,
    ...(q.explain && { plan: answerPlan(plan, explained && { feedback: explained }) }),
  });
  return q.highlight ? withHighlights(answer, hits, terms) : answer;
}
