import type { SpaceSettings } from '../../collections/vector-space.js';
import type { SearchView } from '../../vectors/search-views.js';
import type { Scope } from '../scope.js';
import type { ClientVectorRequest, SearchAnswer } from '../vector-answer.js';
import type { ClientVectorSpace } from '../vector-query.js';

// The messages between the search pool (main thread) and its workers: plain data, structured-cloned.

/** What a worker is started with. */
export interface SearchWorkerData {
  /** The SQLite file, opened read-only by the worker. */
  readonly dbFile: string;
}

/** A search by a collection's own vector, with the view of its index the main thread searched at dispatch. */
export interface SearchTask {
  readonly id: number;
  readonly kind: 'client-vector';
  readonly scope: Scope;
  readonly target: ClientVectorSpace;
  readonly request: Omit<ClientVectorRequest, 'signal'>;
  readonly space: string;
  readonly settings: SpaceSettings;
  readonly view: Omit<SearchView, 'index'>;
}

/**
 * A worker's answer: the finished answer; `stale` when the store moved past the view before the worker's read
 * began (the main thread searches instead); `failed` when the search threw (the main thread searches again, and
 * answers the same error as it would have alone).
 */
export type SearchReply =
  | { readonly id: number; readonly answer: SearchAnswer }
  | { readonly id: number; readonly stale: true }
  | { readonly id: number; readonly failed: string };
