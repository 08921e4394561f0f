import type { OperationLog } from '../../engine/operations/operation.js';
import type { Collections } from '../../engine/collections/collections.js';
import type { Documents } from '../../engine/documents/documents.js';
import type { VectorIndexes } from '../../engine/vectors/vector-index.js';

export interface CollectionDeps {
  readonly collections: Collections;
  readonly documents: Documents;
  readonly vectors: VectorIndexes;
  readonly now: () => number;
  /** Cluster mode: the replicated log that takes collection changes (absent: the embedded store). */
  readonly log?: OperationLog | null;
}
