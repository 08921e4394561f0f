import { createError, isGoDBError } from '@godb/contract';
import type { Collections } from '../collections/collections.js';
import type { ApiKeyStore } from '../directory/api-key-store.js';
import type { Directory } from '../directory/directory.js';
import type { Documents } from '../documents/documents.js';
import type { Maintenance } from '../documents/maintenance.js';
import type { Db } from '../storage/database.js';
import { transaction, type TransactionListener } from '../storage/transaction.js';
import { AppliedRows } from './applied-rows.js';
import type { Operation } from './operation.js';
import type { OperationClock } from './operation-clock.js';

export interface ApplierDeps {
  readonly db: Db;
  readonly text: TransactionListener;
  readonly directory: Directory;
  readonly collections: Collections;
  readonly documents: Documents;
  readonly apiKeys: ApiKeyStore;
  readonly maintenance: Maintenance;
  readonly clock: OperationClock;
}

/** What applying an operation answered: its value, or the catalogue error every node refused it with. */
export type Outcome = { readonly value: unknown } | { readonly error: unknown };

/** An applied operation: its outcome, and the work that follows its commit (files of purged documents). */
export interface Applied {
  readonly outcome: Outcome;
  readonly tail: () => Promise<void>;
}

const noTail = () => Promise.resolve();

/**
 * Applies operations of the replicated log to this node's store, in log order. Each operation is applied
 * synchronously, in one SQLite transaction with its shard's applied sequence, and the in-memory indexes follow
 * only once it committed: a crash or a failure can neither apply an operation twice nor skip one.
 *
 * An operation the catalogue refuses (a duplicate e-mail, a document the writer may not delete: a 4xx) is refused the
 * same way on every node: its sequence is recorded and nothing else changes. Any other failure (the disk is full,
 * SQLite fails, a 5xx of the catalogue) may be this node's alone: nothing is recorded and `apply` throws, so that the caller
 * stops and tries the same operation again rather than go past it.
 */
export class OperationApplier {
  readonly #deps: ApplierDeps;
  readonly #applied: AppliedRows;

  constructor(deps: ApplierDeps) {
    this.#deps = deps;
    this.#applied = new AppliedRows(deps.db);
  }

  /** The last sequence of shard `shard` applied here (0: none). */
  applied(shard: number): number {
    return this.#applied.last(shard);
  }

  /** What this store applied of the single stream of before the shards (0: nothing; see AppliedRows). */
  appliedSingleStream(): number {
    return this.#applied.singleStream();
  }

  /**
   * Applies the operation at `seq` unless it was applied already (then answers null). When this returns, the rows
   * and the sequence are committed and the indexes updated; `tail` is left to the caller. Throws, with nothing
   * recorded, when the failure is not a refusal of the catalogue.
   */
  apply(shard: number, seq: number, op: Operation): Applied | null {
    const { db, text, clock, documents } = this.#deps;
    if (seq <= this.applied(shard)) return null;
    return documents.holdingIndexUpdates(() =>
      transaction(db, [text], () => {
        this.#applied.record(shard, seq);
        try {
          // A savepoint of its own: a refused operation leaves no partial rows, only the sequence above.
          return documents.holdingIndexUpdates(() =>
            transaction(db, [text], () => clock.during(op.now, () => this.#run(op))),
          );
        } catch (error) {
          // A refusal of the catalogue (EMAIL_EXISTS, FORBIDDEN …: a 4xx) depends only on the state, which every
          // node shares, so every node refuses alike. Anything else (SQLite, the disk, a 5xx such as
          // STORAGE_UNAVAILABLE) may be this node's alone: the whole transaction rolls back.
          if (!isGoDBError(error) || error.status >= 500) throw error;
          return { outcome: { error }, tail: noTail };
        }
      }),
    );
  }

  /** The write itself, synchronously, inside the caller's transaction. */
  #run(op: Operation): Applied {
    const { directory, collections, documents, apiKeys, maintenance } = this.#deps;
    const done = (value: unknown): Applied => ({ outcome: { value }, tail: noTail });
    switch (op.kind) {
      case 'create-user':
        return done(op.register ? directory.registerTenant(op.user) : directory.createUser(op.user));
      case 'directory':
        return done((directory[op.method] as (...args: unknown[]) => unknown).apply(directory, op.args));
      case 'write-documents': {
        const [first] = op.documents;
        if (op.expectedVersion !== undefined && first) {
          const current = documents.store.row(op.viewer.tenantId, first.id);
          const version = current && current.deleted_at === null ? current.version : 0;
          if (version !== op.expectedVersion) {
            throw createError('DOCUMENT_CHANGED', { id: first.id, expected: op.expectedVersion, current: version });
          }
        }
        return done(documents.writeNow(op.viewer, op.documents, (i) => op.paths[i] ?? `body[${i}]`, op.decidedOn));
      }
      case 'delete-document': {
        const { removed, tail } = documents.deleteNow(op.viewer, op.documentId, {
          recursive: op.recursive,
          permanent: op.permanent,
          ...(op.decidedOn !== undefined && { decidedOn: op.decidedOn }),
        });
        return { outcome: { value: removed }, tail };
      }
      case 'create-collection':
        return done(collections.create(op.tenantId, op.body, Math.floor(op.now / 1000)));
      case 'delete-collection': {
        const { removed, tail } = documents.deleteCollectionNow(op.tenantId, op.name);
        return { outcome: { value: removed }, tail };
      }
      case 'documents':
        return done((documents[op.method] as (...args: unknown[]) => unknown).apply(documents, op.args));
      case 'update-collection':
        return done(documents.updateCollectionNow(op.tenantId, op.name, op.body, Math.floor(op.now / 1000)));
      case 'delete-some': {
        const { value, tail } = documents.deleteSomeNow(op.viewer, op.ids, op.permanent, op.decidedOn);
        return { outcome: { value }, tail };
      }
      case 'create-api-key':
        return done(apiKeys.insert({ ...op.key, secretHash: Buffer.from(op.key.secretHash, 'hex') }, op.maxPerUser));
      case 'maintenance':
        return done(op.method === 'refresh' ? maintenance.refresh(op.tenantId) : maintenance.recluster(op.tenantId));
      case 'revoke-api-key':
        return done(apiKeys.revoke(op));
    }
  }
}
