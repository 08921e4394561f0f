import { createError } from '@godb/contract';
import { accessStamp, decidedStamp, type DecidedOn } from '../access/access.js';
import type { Collections } from '../collections/collections.js';
import { clientSpaceKey } from '../collections/vector-space.js';
import type { DocumentFiles } from '../files/document-files.js';
import type { FieldIndexes } from '../field-indexes/field-indexes.js';
import type { Db } from '../storage/database.js';
import { transaction, type TransactionListener } from '../storage/transaction.js';
import type { VectorIndexes } from '../vectors/vector-index.js';
import type { DocumentReads } from './document-reads.js';
import type { DocumentStore } from './document-store.js';
import { IndexUpdates, type VectorChanges } from './index-updates.js';
import type { DocumentFields, DocumentRow, Viewer } from './types.js';

/**
 * How a document is deleted, and what the delete was decided on (see DocumentReads.deletion): with `decidedOn`, it
 * runs only on the same documents with the same access; without it, the caller has decided on what is there when it
 * runs.
 */
export interface DeleteOptions {
  readonly recursive: boolean;
  readonly permanent: boolean;
  readonly decidedOn?: DecidedOn;
}

/** The rows of a delete are written; `tail` deletes the purged files and is called once the rows committed. */
export interface Removal<T> {
  readonly value: T;
  readonly tail: () => Promise<void>;
}

export interface DocumentDeletesDeps {
  readonly db: Db;
  readonly text: TransactionListener;
  readonly store: DocumentStore;
  readonly reads: DocumentReads;
  readonly collections: Collections;
  readonly vectors: VectorIndexes;
  readonly files: DocumentFiles | null;
  readonly updates: IndexUpdates;
  readonly fieldIndexes: FieldIndexes;
}

/** Takes a document version's client vectors out of their indexes (their rows stay until it is purged). */
export function takeOutClientVectors(
  store: DocumentStore,
  collections: Collections,
  changes: VectorChanges,
  row: DocumentRow,
): void {
  const collection = collections.get(row.tenant_id, row.primary_table);
  for (const v of store.vectors(row.seq)) {
    // A given model vector is in no index of its own: its chunk leaves the model's index with the others.
    if (collection?.vectors[v.name]?.model !== undefined) continue;
    IndexUpdates.change(changes, clientSpaceKey(v.collection, v.name)).removed.push(v.seq);
  }
}

/**
 * Deletes as the applier runs them, synchronously inside its transaction: a document (and its descendants), a batch
 * of a delete by filter, a whole collection. Who may delete is the service's decision, taken on DocumentReads'
 * facts; each delete runs only on the access it was decided on.
 */
export class DocumentDeletes {
  readonly #deps: DocumentDeletesDeps;

  constructor(deps: DocumentDeletesDeps) {
    this.#deps = deps;
  }

  /**
   * Hides (or with `permanent` purges) a document, and with `recursive` its descendants. A purge deletes the
   * documents' stored files too (every version's); a hidden document keeps its file until then.
   */
  delete(viewer: Viewer, id: string, options: DeleteOptions): Removal<number> {
    const { reads, store } = this.#deps;
    const now = reads.now();
    const targets = reads.deleteTargets(viewer, id, options);
    // Who may delete is the service's decision (document-policy.ts `mayDelete`), taken on `deletion`; the delete
    // runs only on what it was decided on: the same documents, each with the same access (ACCESS_CHANGED otherwise).
    const { decidedOn } = options;
    if (decidedOn !== undefined) {
      const changed =
        targets.find((target) => decidedStamp(decidedOn, target.id) !== accessStamp(store.access(target.seq))) ??
        (targets.length !== Object.keys(decidedOn).length ? targets[0] : undefined);
      if (changed) throw createError('ACCESS_CHANGED', { id: changed.id });
    }
    return { value: targets.length, tail: this.#remove(viewer.tenantId, targets, options.permanent, now) };
  }

  /**
   * Hides (or purges) the given live documents that the viewer may read, in one transaction; ids it cannot read are
   * ignored (callers pass ids they found readable). With `decidedOn`, a document whose access is not the one decided
   * on (changed meanwhile, or not decided at all) is left in place and counted in `skipped`. Children are left alone
   * (delete by filter is not recursive). Keep batches to a few hundred ids.
   */
  deleteSome(
    viewer: Viewer,
    ids: readonly string[],
    permanent: boolean,
    decidedOn?: DecidedOn,
  ): Removal<{ deleted: number; skipped: number }> {
    const { reads, store } = this.#deps;
    const now = reads.now();
    let skipped = 0;
    const targets = ids.flatMap((id) => {
      const row = store.row(viewer.tenantId, id);
      if (!row || row.superseded || !reads.mayRead(viewer, row)) return [];
      if (decidedOn !== undefined && decidedStamp(decidedOn, row.id) !== accessStamp(store.access(row.seq))) {
        skipped += 1;
        return [];
      }
      return [row];
    });
    const tail = this.#remove(viewer.tenantId, targets, permanent, now);
    return { value: { deleted: targets.length, skipped }, tail };
  }

  /**
   * Removes a collection: every version of its documents (permanently, with their files), its vector indexes and its
   * settings, in one transaction; answers the number of documents (current versions) removed. The caller decides who
   * may (tenant admins).
   */
  deleteCollection(tenantId: string, name: string): Removal<number> {
    const { db, text, store, collections, files, updates, vectors } = this.#deps;
    const collection = collections.require(tenantId, name);
    const changes: VectorChanges = new Map();
    const rows = store.collectionRows(tenantId, name);
    transaction(db, [text], () => {
      for (const row of rows) {
        const path = (JSON.parse(row.fields) as DocumentFields).file_path;
        if (path !== undefined) files?.owe([path]);
        const removed = store.purgeVersion(row.seq);
        if (row.model) IndexUpdates.change(changes, row.model).removed.push(...removed);
      }
      collections.remove(tenantId, name);
      this.#deps.fieldIndexes.dropCollection(tenantId, name);
      updates.bump(tenantId, changes);
    });
    updates.apply(tenantId, changes);
    updates.afterCommit(() => {
      for (const vectorName of Object.keys(collection.vectors))
        vectors.drop(tenantId, clientSpaceKey(name, vectorName));
    });
    return {
      value: rows.filter((r) => !r.superseded && r.deleted_at === null).length,
      tail: async () => {
        await files?.deleteOwed();
      },
    };
  }

  /**
   * Removes the documents of a collection that `inShard` names (by id) — every version, from the store and every
   * index — and leaves the collection, its settings and the shared files: what a node does with a shard of a
   * partitioned collection it no longer holds (cluster mode, decision 0082). Answers the current versions removed.
   */
  dropShard(tenantId: string, name: string, inShard: (id: string) => boolean): number {
    const { db, text, store, collections, updates } = this.#deps;
    const changes: VectorChanges = new Map();
    const rows = store.collectionRows(tenantId, name).filter((row) => inShard(row.id));
    transaction(db, [text], () => {
      for (const row of rows) {
        if (!row.superseded && row.deleted_at === null) takeOutClientVectors(store, collections, changes, row);
        const removed = store.purgeVersion(row.seq);
        if (row.model) IndexUpdates.change(changes, row.model).removed.push(...removed);
      }
      updates.bump(tenantId, changes);
    });
    updates.apply(tenantId, changes);
    return rows.filter((r) => !r.superseded && r.deleted_at === null).length;
  }

  /**
   * Hides (or purges) documents in one transaction, with their chunks, vectors and, when purged, their files: the
   * rows go first, the files follow after the commit, or at the next pass when the store refuses (never an error).
   */
  #remove(tenantId: string, targets: readonly DocumentRow[], permanent: boolean, now: number): () => Promise<void> {
    const { db, text, store, collections, files, updates } = this.#deps;
    const changes: VectorChanges = new Map();
    transaction(db, [text], () => {
      for (const target of targets) {
        takeOutClientVectors(store, collections, changes, target);
        if (permanent) files?.owe(store.filePaths(target));
        const removed = permanent ? store.purge(target) : store.softDelete(target, now);
        if (target.model) IndexUpdates.change(changes, target.model).removed.push(...removed);
      }
      updates.bump(tenantId, changes);
    });
    updates.apply(tenantId, changes);
    return async () => {
      if (permanent) await files?.deleteOwed();
    };
  }
}
