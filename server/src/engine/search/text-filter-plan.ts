import type { Scope } from './scope.js';
import type { SearchCore } from './search-core.js';
import { broadFilterFrom } from './vector-candidates.js';
import type { SearchPlan } from './vector-search.js';
import type { FeedbackExplained } from '../text/rm3-feedback.js';

/** How a text search applied its filters (answered with `explain`; see the contract's SearchPlan). */
export interface TextPlan {
  /** index: the allowed documents came from the field indexes; per-candidate: each candidate's row was checked. */
  readonly filter: 'none' | 'index' | 'per-candidate';
  readonly allowed?: number;
  /** A broad filter on indexed fields: the documents it allows, at least (counted up to the broad threshold). */
  readonly estimated_at_least?: number;
  /**
   * text-allowed: BM25 read the postings with the allowed set as a membership predicate (a chunk of another
   * document is never scored); text: BM25's best chunks were read and their documents checked.
   */
  readonly path: 'text-allowed' | 'text' | 'listed';
}

/** A text, hybrid or faceted search's plan as answered (the contract's SearchPlan). */
export interface AnswerPlan extends TextPlan {
  readonly exact: boolean;
  readonly vector_filter?: SearchPlan['filter'];
  readonly vector_path?: SearchPlan['path'];
  readonly facets?: Record<string, 'index' | 'documents'>;
  /** A text query with feedback: its documents and the weighted query ranked second (feedback-hits.ts). */
  readonly feedback?: FeedbackExplained;
}

/** The plan answered for a text side's plan: its ranking is exact when BM25 read the allowed set's postings. */
export const answerPlan = (plan: TextPlan, extra: Partial<AnswerPlan> = {}): AnswerPlan => ({
  ...plan,
  exact: plan.path !== 'text',
  ...extra,
});

/**
 * The documents a text search may rank, from the collection's field indexes, when its filters are all on ready
 * indexes and not broad: then BM25 skips every other document while it reads the postings, and no candidate's row
 * is read to evaluate the filters (issue #39). Broad — at least broadFilterFrom(want, chunks in the tenant's index)
 * documents, counted up to that — the set would cost more (about 3 µs per document) than checking the rows of the
 * best `want` chunks and the few more a broad filter rejects, so those are checked as before; the same rule as a
 * filtered vector search's (docs/decisions/0065-indexed-text-and-facet-filters.md).
 */
export function textAllowed(
  core: SearchCore,
  scope: Scope,
  want: number,
  size: number,
): { allowed?: ReadonlySet<number>; plan: TextPlan } {
  if (!scope.filters) return { plan: { filter: 'none', path: 'text' } };
  const broad = broadFilterFrom(want, size);
  const estimate = core.allowed.estimate(scope.viewer.tenantId, scope.table, scope.filters, broad);
  if (!estimate) return { plan: { filter: 'per-candidate', path: 'text' } };
  if (estimate.low >= broad) {
    return { plan: { filter: 'per-candidate', estimated_at_least: estimate.low, path: 'text' } };
  }
  const allowed = core.indexedDocs(scope);
  if (!allowed) return { plan: { filter: 'per-candidate', path: 'text' } };
  return { allowed, plan: { filter: 'index', allowed: allowed.size, path: 'text-allowed' } };
}
