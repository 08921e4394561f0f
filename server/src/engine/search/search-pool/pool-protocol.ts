import type { SpaceSettings } from '../../collections/vector-space.js';
import type { SearchView } from '../../vectors/search-views.js';
import type { Scope } from '../scope.js';
import type { ClientVectorRequest, ModelVectorRequest, SearchAnswer } from '../vector-answer.js';
import type { ClientVectorSpace } from '../vector-query.js';
import type { QueryVector } from '../vector-search.js';
import type { QueryAnalysis } from '../../text/query-analysis.js';
import type { TextRequest } from '../text-answer.js';
import type { TextToken } from './text-token.js';
import type { HybridShown } from '../hybrid-answer.js';
import type { HybridQuery } from '../hybrid-search.js';

// The messages between the search pool (main thread) and its workers: plain data, structured-cloned.

/** What a worker is started with. */
export interface SearchWorkerData {
  /** The SQLite file, opened read-only by the worker. */
  readonly dbFile: string;
  /** Stored rows a text index is caught up or built by inside a query at most (see WorkerTextIndexes). */
  readonly textInlineRows?: number | undefined;
}

/** What every task carries: the caller's scope, and the view of the space's index the main thread had at dispatch. */
interface TaskBase {
  readonly id: number;
  readonly scope: Scope;
  readonly space: string;
  readonly settings: SpaceSettings;
  readonly view: Omit<SearchView, 'index'>;
}

/**
 * A search by a collection's own vector, or by embedding (its query vector made on the main thread); or a BM25
 * match or phrase search, with the token of the state the main thread's text index had applied at dispatch; or a
 * hybrid search by a collection's own vector (both).
 */
export type SearchTask =
  | {
      readonly id: number;
      readonly kind: 'text';
      readonly scope: Scope;
      readonly token: TextToken;
      readonly request: TextRequest;
      readonly analysis: QueryAnalysis;
    }
  | (TaskBase & {
      readonly kind: 'client-vector';
      readonly target: ClientVectorSpace;
      readonly request: Omit<ClientVectorRequest, 'signal'>;
    })
  | (TaskBase & {
      readonly kind: 'model-vector';
      readonly request: Omit<ModelVectorRequest, 'signal'>;
      readonly given: QueryVector;
    })
  | (TaskBase & {
      readonly kind: 'hybrid';
      /** The collection's own vector the vector side searches (the request's `space`); else by `request.given`. */
      readonly target?: ClientVectorSpace;
      readonly request: Omit<HybridQuery, 'signal' | 'space'>;
      readonly shown: HybridShown;
      /** The text index's state at dispatch, when the query has words (as a text task's). */
      readonly token?: TextToken;
    });

/**
 * A worker's answer: the finished answer; `stale` when the store moved past the view before the worker's read
 * began (the main thread searches instead), with `building` when the worker builds a text index next (it takes no
 * task until it posts `built`); `failed` when the search threw (the main thread searches again, and answers the
 * same error as it would have alone).
 */
export type SearchReply =
  | { readonly id: number; readonly answer: SearchAnswer }
  | { readonly id: number; readonly stale: true; readonly building?: true }
  | { readonly id: number; readonly failed: string }
  | { readonly built: true };
