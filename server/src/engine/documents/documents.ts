import type { Clock } from '../clock.js';
import type { Collections } from '../collections/collections.js';
import type { Embedder } from '../embeddings/embedder.js';
import type { FieldIndexes } from '../field-indexes/field-indexes.js';
import type { DocumentFiles } from '../files/document-files.js';
import type { Db } from '../storage/database.js';
import type { TextIndex } from '../text/text-index.js';
import type { VectorIndexes } from '../vectors/vector-index.js';
import { AccessChanges } from './access-changes.js';
import { DocumentDeletes } from './document-deletes.js';
import { DocumentEngagement } from './document-engagement.js';
import { DocumentPatches } from './document-patch.js';
import { DocumentPreparation } from './document-preparation.js';
import { DocumentReads } from './document-reads.js';
import { DocumentStore } from './document-store.js';
import { DocumentWrites } from './document-writes.js';
import { EngagementStore } from './engagement-store.js';
import { IndexUpdates } from './index-updates.js';

export interface DocumentsDeps {
  readonly db: Db;
  readonly text: TextIndex;
  /** The engine's clock (held at an operation's time while the applier applies it: see OperationClock). */
  readonly clock: Clock;
  readonly embedder: Embedder;
  readonly vectors: VectorIndexes;
  /** Where uploaded files are kept; null keeps none (an in-memory engine). */
  readonly files: DocumentFiles | null;
  readonly collections: Collections;
  /** The collections' field indexes, posted by every write. */
  readonly fieldIndexes: FieldIndexes;
}

/**
 * The documents' parts, each with one job: reads through the access rule, the preparation of writes (validation,
 * chunking, embedding), and the changes the operation applier runs (writes, deletes, access changes, engagement),
 * with the in-memory index updates that follow their commit. Writes reach them only as operations of the log
 * (engine/operations/operation-applier.ts); the use cases make those operations (see DocumentCommands).
 */
export class Documents {
  readonly store: DocumentStore;
  readonly reads: DocumentReads;
  readonly preparation: DocumentPreparation;
  readonly patches: DocumentPatches;
  readonly writes: DocumentWrites;
  readonly deletes: DocumentDeletes;
  readonly access: AccessChanges;
  readonly engagement: DocumentEngagement;
  readonly updates: IndexUpdates;
  readonly #vectors: VectorIndexes;

  constructor(deps: DocumentsDeps) {
    const { db, text, clock, embedder, vectors, files, collections, fieldIndexes } = deps;
    this.#vectors = vectors;
    this.store = new DocumentStore(db, text);
    const engagement = new EngagementStore(db);
    this.updates = new IndexUpdates(vectors);
    this.reads = new DocumentReads({ store: this.store, engagement, clock, files, collections });
    const parts = { db, text, store: this.store, reads: this.reads, collections, updates: this.updates };
    this.preparation = new DocumentPreparation({ embedder, collections });
    this.patches = new DocumentPatches({ ...parts, preparation: this.preparation });
    this.writes = new DocumentWrites({ ...parts, fieldIndexes });
    this.deletes = new DocumentDeletes({ ...parts, vectors, files, fieldIndexes });
    this.access = new AccessChanges(parts);
    this.engagement = new DocumentEngagement({ ...parts, engagement });
  }

  /**
   * Holds background vector indexing while a bulk import writes: its writes are answered without sharing the
   * thread with HNSW insertion, and searches compare the vectors not indexed yet exactly. Call the returned
   * function when the import ends.
   */
  deferIndexing(): () => void {
    return this.#vectors.deferIndexing();
  }
}
