import { createError, isGoDBError } from '@godb/contract';
import type { Collections } from '../collections/collections.js';
import type { Directory } from '../directory/directory.js';
import type { Documents } from '../documents/documents.js';
import type { Db } from '../storage/database.js';
import { transaction, type TransactionListener } from '../storage/transaction.js';
import type { Operation } from './operation.js';
import type { OperationClock } from './operation-clock.js';

export interface ApplierDeps {
  readonly db: Db;
  readonly text: TransactionListener;
  readonly directory: Directory;
  readonly collections: Collections;
  readonly documents: Documents;
  readonly clock: OperationClock;
}

/**
 * Applies operations of the replicated log to this node's store, in log order, recording each stream's applied
 * sequence in the same transaction as the rows, so a crash can neither apply an operation twice nor skip one.
 * An operation the catalogue refuses (a duplicate e-mail, a document the writer may not delete) is refused the same
 * way on every node: its sequence is recorded all the same and nothing else changes.
 */
export class OperationApplier {
  readonly #deps: ApplierDeps;

  constructor(deps: ApplierDeps) {
    this.#deps = deps;
  }

  /** The last sequence of `stream` applied here (0: none). */
  applied(stream: string): number {
    const row = this.#deps.db.prepare('SELECT seq FROM cluster_applied WHERE stream = ?').get(stream) as
      { seq: number } | undefined;
    return row?.seq ?? 0;
  }

  /**
   * Applies the operation at `seq` unless it was applied already (then answers null). The rows are committed when
   * this returns; the promise answers what the write answered (or rejects with its error) once its tail (files
   * deleted after the commit) is done.
   */
  apply(stream: string, seq: number, op: Operation): Promise<unknown> | null {
    const { db, text, clock } = this.#deps;
    if (seq <= this.applied(stream)) return null;
    const outcome = transaction(db, [text], () => {
      let result: { value: unknown } | { error: unknown };
      try {
        result = { value: clock.during(op.now, () => this.#run(op)) };
      } catch (error) {
        // A refusal of the catalogue (EMAIL_EXISTS, FORBIDDEN …) depends only on the state, so every node refuses
        // alike and the sequence is recorded. Anything else (the disk, SQLite) may be this node's alone: the
        // transaction rolls back, nothing is recorded, and the consumer tries the operation again.
        if (!isGoDBError(error)) throw error;
        result = { error };
      }
      db.prepare(
        'INSERT INTO cluster_applied (stream, seq) VALUES (?, ?) ON CONFLICT (stream) DO UPDATE SET seq = excluded.seq',
      ).run(stream, seq);
      return result;
    });
    if ('error' in outcome) return Promise.reject(outcome.error as Error);
    return Promise.resolve(outcome.value);
  }

  /** The write itself; the synchronous part of each runs inside the caller's transaction. */
  #run(op: Operation): unknown {
    const { directory, collections, documents } = this.#deps;
    switch (op.kind) {
      case 'create-user':
        return op.register ? directory.registerTenant(op.user) : directory.createUser(op.user);
      case 'directory':
        return (directory[op.method] as (...args: unknown[]) => unknown).apply(directory, op.args);
      case 'write-documents': {
        const [first] = op.documents;
        if (op.expectedVersion !== undefined && first) {
          const current = documents.store.row(op.viewer.tenantId, first.id);
          const version = current && current.deleted_at === null ? current.version : 0;
          if (version !== op.expectedVersion) {
            throw createError('DOCUMENT_CHANGED', { id: first.id, expected: op.expectedVersion, current: version });
          }
        }
        return documents.writeHere(op.viewer, op.documents, (i) => op.paths[i] ?? `body[${i}]`);
      }
      case 'delete-document':
        return documents.deleteHere(op.viewer, op.documentId, { recursive: op.recursive, permanent: op.permanent });
      case 'create-collection':
        return collections.create(op.tenantId, op.body, Math.floor(op.now / 1000));
      case 'delete-collection':
        return documents.deleteCollectionHere(op.tenantId, op.name);
    }
  }
}
