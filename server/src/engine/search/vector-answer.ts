import type { Hit } from './hit.js';
import type { SearchRows } from '../access/search-rows.js';
import { resultViews, type SearchResultView } from './result-view.js';
import type { CountedDocument, Scope } from './scope.js';
import type { SearchCore } from './search-core.js';
import type { ClientVectorSpace, SimilarityMethod } from './vector-query.js';
import type { AnswerPlan } from './text-filter-plan.js';
import { clientVectorSearch, vectorSearchBy, type QueryVector, type SearchPlan } from './vector-search.js';

/** A finished search: the API's results (the top `limit`, three chunks each), the count, the time and notes. */
export interface SearchAnswer {
  results: SearchResultView[];
  total_hits: number;
  /** Milliseconds spent in the engine. */
  time_taken: number;
  ranking?: string;
  notes?: string[];
  /** How a search found its results, when asked (`explain`). */
  plan?: SearchPlan | AnswerPlan;
}

/** What a search by a collection's own vector is asked (a VectorSearchRequest without its embedding choices). */
export interface ClientVectorRequest {
  readonly vector?: unknown;
  readonly method: SimilarityMethod;
  readonly threshold: number;
  readonly limit: number;
  readonly combineLocation: boolean;
  readonly explain?: boolean | undefined;
  readonly signal?: AbortSignal | undefined;
}

/** What a search by embedding is asked (its query vector already known). */
export interface ModelVectorRequest extends ClientVectorRequest {
  readonly text?: string | undefined;
  readonly model?: string | undefined;
}

/**
 * Hits as the API answers them: the top `limit` as results, all of them counted; `elapsed` the engine's
 * milliseconds so far. A node's part of a fanned-out search (`only`: Scope.counted) shows and counts only the
 * documents it counts (decision 0089).
 */
export function finishAnswer(
  rows: SearchRows,
  elapsed: () => number,
  hits: readonly Hit[],
  limit: number,
  extra: {
    notes?: string[];
    ranking?: string;
    plan?: SearchPlan | AnswerPlan;
    /** Shows and counts only these documents (Scope.counted). */
    only?: CountedDocument | undefined;
  } = {},
): SearchAnswer {
  const only = extra.only;
  const shown = only ? hits.filter((h) => only(h.doc)) : hits;
  return {
    results: resultViews(rows, shown, limit),
    total_hits: shown.length,
    time_taken: elapsed(),
    ...(extra.ranking !== undefined && { ranking: extra.ranking }),
    ...(extra.notes !== undefined && extra.notes.length > 0 && { notes: extra.notes }),
    ...(extra.plan && { plan: extra.plan }),
  };
}

/**
 * The whole answer of a search by a collection's own vector, the same on the main thread and in a search worker
 * (search-pool/): hits, notes (which vector, an ignored method, what the threshold left out) and the results.
 */
export async function clientVectorAnswer(
  core: SearchCore,
  scope: Scope,
  target: ClientVectorSpace,
  q: ClientVectorRequest,
  elapsed: () => number,
): Promise<SearchAnswer> {
  const { settings } = target;
  const { hits, exact, cut, plan } = await clientVectorSearch(core, scope, target, {
    vector: q.vector,
    method: settings.distance,
    threshold: q.threshold,
    limit: q.limit,
    combineLocation: q.combineLocation,
    signal: q.signal,
  });
  const notes = [
    `vector "${target.name}" of collection ${target.collection} (${settings.distance}, ${settings.storage})`,
    ...(q.method !== 'cosine' && q.method !== settings.distance
      ? [`similarity_method ${q.method} ignored: the collection compares this vector by ${settings.distance}`]
      : []),
    ...(exact ? ['the restrictions were selective: scored every allowed vector exactly'] : []),
    ...(cut.dropped > 0
      ? [
          `${cut.dropped} ${cut.dropped === 1 ? 'result' : 'results'} below the threshold ${q.threshold} left out (it applies to the ${settings.distance === 'euclidean' ? '1 / (1 + distance)' : settings.distance} score); lower it to see more`,
        ]
      : []),
  ];
  return finishAnswer(core.rows, elapsed, hits, q.limit, { notes, ...(q.explain && { plan }), only: scope.counted });
}

/**
 * The whole answer of a search by embedding once its query vector is known, the same on the main thread and in a
 * search worker: hits, notes (the model, what the threshold left out and what it means for the model) and results.
 */
export async function modelVectorAnswer(
  core: SearchCore,
  scope: Scope,
  q: ModelVectorRequest,
  given: QueryVector,
  elapsed: () => number,
): Promise<SearchAnswer> {
  const { hits, model, exact, cut, plan } = await vectorSearchBy(core, scope, q, given);
  const notes = [
    `model ${model}`,
    ...(exact ? ['the restrictions were selective: scored every allowed vector exactly'] : []),
    // Say when the threshold left results out, and what it means for this model.
    ...(cut.dropped > 0
      ? [
          `${cut.dropped} ${cut.dropped === 1 ? 'result' : 'results'} below the threshold left out: threshold ${q.threshold} applies to the score, ${model}'s calibrated relevance (a ${q.method} similarity of ${cut.score.toFixed(3)}); lower it to see more`,
        ]
      : []),
  ];
  return finishAnswer(core.rows, elapsed, hits, q.limit, { notes, ...(q.explain && { plan }), only: scope.counted });
}
