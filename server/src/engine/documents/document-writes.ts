import { createError } from '@godb/contract';
import { accessStamp, decidedStamp, type DecidedOn } from '../access/access.js';
import type { Collections } from '../collections/collections.js';
import type { FieldIndexes } from '../field-indexes/field-indexes.js';
import { refuseUndeclared } from '../sparse/sparse-input.js';
import { SparsePostings } from '../sparse/sparse-posting-rows.js';
import type { Db } from '../storage/database.js';
import { transaction, type TransactionListener } from '../storage/transaction.js';
import { takeOutClientVectors } from './document-deletes.js';
import type { DocumentReads } from './document-reads.js';
import type { DocumentStore } from './document-store.js';
import { IndexUpdates, type VectorChanges } from './index-updates.js';
import type { DocumentFields, PreparedDocument, Viewer } from './types.js';
import { multiVectorRows } from '../multi-vectors/multi-vector-writes.js';

type FilterableFields = Record<string, unknown> & { metadata?: Record<string, unknown> };

export interface DocumentWritesDeps {
  readonly db: Db;
  readonly text: TransactionListener;
  readonly store: DocumentStore;
  readonly reads: DocumentReads;
  readonly collections: Collections;
  readonly updates: IndexUpdates;
  readonly fieldIndexes: FieldIndexes;
}

/** What a write of prepared documents was decided on, and what the taking node stored for it. */
export interface WriteConditions {
  /** The access stamps of the existing documents it writes over, as the service decided on them. */
  readonly decidedOn?: DecidedOn | undefined;
  /** The keys of the documents' files in the store, one per document (null: no file), stored before the write. */
  readonly fileKeys?: readonly (string | null)[] | undefined;
  /** A partial update: the version of the one document it was prepared from; another one is refused. */
  readonly expectedVersion?: number | undefined;
}

/** Two given vectors for the same name (`vector` is the default one, and `vectors` names it too) are refused. */
function refuseRepeatedNames(resolved: readonly { name: string }[], given: readonly { field: string }[]): void {
  const seen = new Map<string, number>();
  resolved.forEach((v, i) => {
    const first = seen.get(v.name);
    if (first !== undefined) {
      throw createError(
        'VALIDATION_FAILED',
        { detail: `${given[i]!.field} and ${given[first]!.field} both give vector "${v.name}"` },
        { field: given[i]!.field },
      );
    }
    seen.set(v.name, i);
  });
}

/**
 * Writes prepared (and embedded) documents as the applier runs them: synchronously, in one transaction, then the
 * in-memory vector indexes (after the operation's commit). Files were stored before the operation was made, and the
 * write records their keys; it never uploads.
 */
export class DocumentWrites {
  readonly #deps: DocumentWritesDeps;
  readonly #sparse: SparsePostings;

  constructor(deps: DocumentWritesDeps) {
    this.#deps = deps;
    this.#sparse = SparsePostings.of(deps.db);
  }

  /** Writes every document or none; `path(i)` names the i-th one in errors (`body[3]`, `line 12`). */
  write(
    viewer: Viewer,
    prepared: readonly PreparedDocument[],
    path: (i: number) => string,
    conditions: WriteConditions = {},
  ): { id: string; version: number }[] {
    const { store, updates } = this.#deps;
    const [first] = prepared;
    const { expectedVersion } = conditions;
    if (expectedVersion !== undefined && first) {
      const current = store.row(viewer.tenantId, first.id);
      const version = current && current.deleted_at === null ? current.version : 0;
      if (version !== expectedVersion) {
        throw createError('DOCUMENT_CHANGED', { id: first.id, expected: expectedVersion, current: version });
      }
    }
    const changes: VectorChanges = new Map();
    // Each document reads its collection three times or more (vectors, field indexes, multi-vectors): once a write.
    const result = this.#deps.collections.holding(() => this.#writeRows(viewer, prepared, path, conditions, changes));
    updates.apply(viewer.tenantId, changes);
    return result;
  }

  #writeRows(
    viewer: Viewer,
    prepared: readonly PreparedDocument[],
    path: (i: number) => string,
    { decidedOn, fileKeys }: WriteConditions,
    changes: VectorChanges,
  ): { id: string; version: number }[] {
    const { db, text, store, reads, collections, updates, fieldIndexes } = this.#deps;
    const now = reads.now();
    return transaction(db, [text], () => {
      const out = prepared.map((doc, i) => {
        const existing = store.row(viewer.tenantId, doc.id);
        // Who may write over an existing id is the service's decision (document-policy.ts `mayOverwrite`), taken on
        // overwriteFacts; the write runs only on the access it was decided on: a document that appeared, went, or
        // whose entries changed since is refused (ACCESS_CHANGED) on every node alike.
        if (decidedOn !== undefined) {
          const stamp = existing ? accessStamp(store.access(existing.seq)) : undefined;
          if (stamp !== decidedStamp(decidedOn, doc.id))
            throw createError('ACCESS_CHANGED', { id: doc.id }, { field: `${path(i)}.id` });
        }
        if (doc.parentDocId !== undefined) {
          reads.readable(viewer, doc.parentDocId, `${path(i)}.parent_doc_id`);
          this.#refuseCycle(viewer.tenantId, doc.id, doc.parentDocId, `${path(i)}.parent_doc_id`);
        }
        const fields: DocumentFields = { ...doc.fields };
        const version = existing ? existing.version + 1 : 1;
        const embedded = doc.model !== null && doc.chunks.length > 0 ? doc.model : null;
        const vectors = collections.prepareWrite(
          viewer.tenantId,
          doc.primaryTable,
          embedded,
          doc.vectors,
          now,
          doc.givenModelVector,
        );
        refuseRepeatedNames(vectors, doc.vectors);
        if (existing) {
          takeOutClientVectors(store, collections, changes, existing);
          const removed = store.archive(existing);
          if (existing.model) IndexUpdates.change(changes, existing.model).removed.push(...removed);
          fields.previous_doc_id = `${existing.id}@v${existing.version}`;
        }
        const filePath = fileKeys?.[i];
        if (filePath) fields.file_path = filePath;
        const { seq, chunks } = store.insert(viewer.tenantId, doc.ownerId ?? viewer.userId, doc, version, now, fields);
        if (doc.model && chunks.length > 0) IndexUpdates.change(changes, doc.model).added.push(...chunks);
        // The collection's field indexes, in this transaction: a value of another type than declared refuses the
        // whole write, naming the field.
        fieldIndexes.post(
          viewer.tenantId,
          collections.get(viewer.tenantId, doc.primaryTable),
          seq,
          {
            id: doc.id,
            title: doc.title,
            content: doc.content,
            primary_table: doc.primaryTable,
            visibility: doc.visibility,
            created_at: doc.createdAt ?? now,
            updated_at: doc.updatedAt ?? now,
            parent_doc_id: doc.parentDocId ?? null,
            cluster: null,
            fields: fields as unknown as FilterableFields,
          },
          (field) => `${path(i)}.${field}`,
        );
        // Sparse vectors (issue #42): names the collection declares, posted in this transaction.
        if (fields.sparse_vectors) {
          const collection = collections.get(viewer.tenantId, doc.primaryTable);
          refuseUndeclared(
            fields.sparse_vectors,
            collection?.sparse_vectors,
            doc.primaryTable,
            `${path(i)}.sparse_vectors`,
          );
          this.#sparse.post(viewer.tenantId, doc.primaryTable, seq, fields.sparse_vectors);
        }
        // A given model vector (space null) is searched through the first chunk, in the model's index.
        const multi = multiVectorRows(
          collections.get(viewer.tenantId, doc.primaryTable),
          doc.primaryTable,
          doc.multiVectors ?? [],
        );
        for (const { space, chunk } of store.insertVectors(seq, viewer.tenantId, doc.primaryTable, [
          ...vectors,
          ...multi,
        ]))
          if (space !== null) IndexUpdates.change(changes, space).added.push(chunk);
        return { id: doc.id, version };
      });
      updates.bump(viewer.tenantId, changes);
      return out;
    });
  }

  /** A document cannot be its own ancestor: walks up from `parentId` (remembering where it has been). */
  #refuseCycle(tenantId: string, id: string, parentId: string, field: string): void {
    const seen = new Set<string>();
    for (let at: string | null = parentId; at !== null && !seen.has(at);) {
      if (at === id) {
        throw createError(
          'VALIDATION_FAILED',
          {
            detail: `${field}: ${parentId} is ${id} or one of its descendants, and a document cannot be its own ancestor`,
          },
          { field },
        );
      }
      seen.add(at);
      at = this.#deps.store.row(tenantId, at)?.parent_doc_id ?? null;
    }
  }
}
