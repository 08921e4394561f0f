import type { DocumentCommands } from '../../engine/operations/document-commands.js';
import type { OperationLog } from '../../engine/operations/operation.js';
import type { Collections } from '../../engine/collections/collections.js';
import type { FieldIndexes } from '../../engine/field-indexes/field-indexes.js';
import type { Documents } from '../../engine/documents/documents.js';
import type { VectorIndexes } from '../../engine/vectors/vector-index.js';

export interface CollectionDeps {
  readonly collections: Collections;
  /** The collections' field indexes: their state in a collection's info. */
  readonly fieldIndexes: FieldIndexes;
  readonly documents: Documents;
  readonly vectors: VectorIndexes;
  readonly now: () => number;
  /** The log every write is submitted to. */
  readonly log: OperationLog;
  /** The documents' writes as operations (a collection's removal takes its documents). */
  readonly commands: DocumentCommands;
}
