import { createError, isGoDBError } from '@godb/contract';
import type { Collections } from '../collections/collections.js';
import type { ApiKeyStore } from '../directory/api-key-store.js';
import type { Directory } from '../directory/directory.js';
import type { Documents } from '../documents/documents.js';
import type { VectorIndexes } from '../vectors/vector-index.js';
import type { JobStore } from '../jobs/job-store.js';
import type { Outbox } from '../mail/outbox.js';
import type { OnlineRestore } from '../snapshots/online-restore.js';
import type { Snapshots } from '../snapshots/snapshots.js';
import { Fences } from './fence-rows.js';
import type { DocumentFiles } from '../files/document-files.js';
import type { Maintenance } from '../documents/maintenance.js';
import type { Db } from '../storage/database.js';
import { transaction, type TransactionListener } from '../storage/transaction.js';
import { AppliedRows } from './applied-rows.js';
import { createCollectionWithIndexes, updateCollectionSettings } from '../documents/collection-settings.js';
import type { FieldIndexes } from '../field-indexes/field-indexes.js';
import { fencedOut, type DocumentChanges, type SubmitOptions, type Operation } from './operation.js';
import type { OperationClock } from './operation-clock.js';

export interface ApplierDeps {
  readonly db: Db;
  readonly text: TransactionListener;
  readonly directory: Directory;
  readonly collections: Collections;
  readonly fieldIndexes: FieldIndexes;
  readonly documents: Documents;
  readonly vectors: VectorIndexes;
  readonly apiKeys: ApiKeyStore;
  readonly maintenance: Maintenance;
  readonly jobs: JobStore;
  readonly outbox: Outbox;
  /** The snapshots users take (their store is shared by the cluster) and restores into this node. */
  readonly snapshots: Snapshots | null;
  readonly restore: OnlineRestore | null;
  readonly clock: OperationClock;
  /** The cluster's shared store of uploaded files, when there is one. */
  readonly files: DocumentFiles | null;
  /** This node's id (NODE_ID): it deletes the shared files that the operations it took purge. */
  readonly node: string;
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
  readonly #fences: Fences;
  /** What the asynchronous part of an operation (see prepare) answered, by operation id, until it is applied. */
  readonly #prepared = new Map<string, Outcome>();

  constructor(deps: ApplierDeps) {
    this.#deps = deps;
    this.#applied = new AppliedRows(deps.db);
    this.#fences = new Fences(deps.db);
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
   * The part of an operation that cannot run in one synchronous transaction, run (and awaited) right before `apply`
   * records it: a snapshot restore (the archive read from the shared store, checked, and its tenant's rows replaced
   * in slices). Restoring the same archive again ends the same, so a crash between the two is harmless: the restore
   * runs again when the operation is applied after the restart. A refusal of the catalogue (SNAPSHOT_CORRUPT …)
   * is the operation's outcome, alike everywhere; any other failure throws, and the caller halts and tries again.
   */
  async prepare(shard: number, seq: number, op: Operation): Promise<void> {
    if (op.kind !== 'restore-snapshot' || seq <= this.applied(shard) || this.#prepared.has(op.id)) return;
    await this.#restore(op);
  }

  /**
   * Applies an operation at once, in the caller's transaction, with the clock held at its time (the embedded log:
   * there is no sequence to record). A restore is run first, with `effects` told how it goes. Throws what applying
   * throws, refusals of the catalogue included; nothing of a refused operation stays.
   */
  async applyNow(op: Operation, effects?: SubmitOptions): Promise<unknown> {
    if (op.kind === 'restore-snapshot') await this.#restore(op, effects);
    const { outcome, tail } = this.applyNowSync(op);
    if ('error' in outcome) throw outcome.error;
    await tail();
    return outcome.value;
  }

  /**
   * The synchronous part of applyNow, for every operation but a restore: the rows are written (or nothing, when it
   * throws) before it returns, with no turn of the event loop in between.
   */
  applyNowSync(op: Operation): Applied {
    const { db, text, clock, documents } = this.#deps;
    return documents.updates.holding(() => transaction(db, [text], () => clock.during(op.now, () => this.#run(op))));
  }

  /** Restores the operation's archive copy; its outcome waits for the operation's apply (see prepare). */
  async #restore(op: Extract<Operation, { kind: 'restore-snapshot' }>, effects?: SubmitOptions): Promise<void> {
    const { snapshots, restore } = this.#deps;
    try {
      if (!snapshots || !restore) throw createError('NOT_FOUND', { resource: 'Snapshot store', id: 'in-memory' });
      const archive = await snapshots.kept(op.archive).catch((error: unknown) => {
        // The taking node stored the copy before publishing, and it is deleted only once the log was truncated past
        // this operation (cluster/kept-archives.ts): a node that finds it gone missed the truncation, and recording
        // NOT_FOUND as the restore's outcome would leave its tenant unrestored here alone. It halts instead.
        if (!isGoDBError(error) || error.code !== 'NOT_FOUND') throw error;
        throw createError('STORAGE_UNAVAILABLE', {
          location: 'the snapshot store',
          reason: `the archive copy ${op.archive} of this restore is gone: it is deleted once the log is truncated past the restore, so this node is behind a truncation; restart it to restore the latest cluster snapshot`,
        });
      });
      const staged = await restore.stage(archive.body, {
        tenantId: op.restorer.tenantId,
        keepTenants: op.restorer.keepTenants,
        trustIndexFiles: op.restorer.trustIndexFiles,
      });
      // Nothing to drain in the log: the tenant's writes under way come after this operation. An embedded node still
      // waits for its requests under way (LocalLog passes effects.drain; NatsLog does not).
      const report = await restore.apply(staged, effects?.restore?.progress, effects?.restore?.drain);
      // The restore dropped the tenant's postings and builds: its declared indexes are built again at once.
      this.#deps.fieldIndexes.start();
      this.#prepared.set(op.id, { value: { ...report, snapshot_id: op.snapshotId } });
    } catch (error) {
      if (!isGoDBError(error) || error.status >= 500) throw error;
      this.#prepared.set(op.id, { error });
    }
  }

  /**
   * Applies the operation at `seq` unless it was applied already (then answers null). When this returns, the rows
   * and the sequence are committed and the indexes updated; `tail` is left to the caller. Throws, with nothing
   * recorded, when the failure is not a refusal of the catalogue.
   */
  apply(shard: number, seq: number, op: Operation): Applied | null {
    if (seq <= this.applied(shard)) return null;
    return this.#applyRecorded(op, () => this.#applied.record(shard, seq));
  }

  /** The last sequence of a collection-shard subject applied here (decision 0062; 0: none). */
  appliedOfSubject(subject: string): number {
    return this.#applied.lastOfSubject(subject);
  }

  /**
   * Applies the operation stored at `seq` of the stream of partitioned collections, on `subject` (one collection
   * shard, which this node holds), unless applied already (null); as `apply` otherwise.
   */
  applyOnSubject(subject: string, seq: number, op: Operation): Applied | null {
    if (seq <= this.#applied.lastOfSubject(subject)) return null;
    return this.#applyRecorded(op, () => this.#applied.recordSubject(subject, seq));
  }

  /** Every collection-shard subject this store applied some of (decision 0082: released at start when not held). */
  appliedSubjects(): string[] {
    return this.#applied.subjects();
  }

  /**
   * Removes a collection shard this node no longer holds (decision 0082): every version of the collection's documents
   * in it (`inShard`, by id), from the store and every index, and the subject's applied sequence, in one transaction.
   * The shared files stay: the shard's other holders still serve them. Answers the documents removed.
   */
  releaseSubject(subject: string, tenantId: string, name: string, inShard: (id: string) => boolean): number {
    const { db, text, documents } = this.#deps;
    return documents.updates.holding(() =>
      transaction(db, [text], () => {
        const removed = documents.deletes.dropShard(tenantId, name, inShard);
        this.#applied.forgetSubject(subject);
        return removed;
      }),
    );
  }

  /** Whether the tenant has the collection here (every node holds every collection's settings). */
  hasCollection(tenantId: string, name: string): boolean {
    return this.#deps.collections.get(tenantId, name) !== undefined;
  }

  #applyRecorded(op: Operation, record: () => void): Applied {
    const { db, text, documents } = this.#deps;
    return documents.updates.holding(() =>
      transaction(db, [text], () => {
        record();
        try {
          // A savepoint of its own: a refused operation leaves no partial rows, only the sequence above.
          // The files store is shared: the node that took the operation deletes the files it purges, once.
          const run = () => this.#deps.clock.during(op.now, () => this.#run(op));
          const { files } = this.#deps;
          const shared = files && op.node !== this.#deps.node ? files : null;
          return documents.updates.holding(() =>
            transaction(db, [text], () => (shared ? shared.othersDelete(run) : run())),
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
    const { directory, collections, documents, apiKeys, maintenance, jobs, outbox } = this.#deps;
    const done = (value: unknown): Applied => ({ outcome: { value }, tail: noTail });
    switch (op.kind) {
      case 'create-user':
        return done(op.register ? directory.registerTenant(op.user) : directory.createUser(op.user));
      case 'directory':
        return done((directory[op.method] as (...args: unknown[]) => unknown).apply(directory, op.args));
      case 'write-documents': {
        const { viewer, paths, expectedVersion, decidedOn, fileKeys } = op;
        const path = (i: number) => paths[i] ?? `body[${i}]`;
        return done(documents.writes.write(viewer, op.documents, path, { expectedVersion, decidedOn, fileKeys }));
      }
      case 'delete-document': {
        const { value, tail } = documents.deletes.delete(op.viewer, op.documentId, {
          recursive: op.recursive,
          permanent: op.permanent,
          ...(op.decidedOn !== undefined && { decidedOn: op.decidedOn }),
        });
        return { outcome: { value }, tail };
      }
      case 'create-collection': {
        const { vectors, fieldIndexes } = this.#deps;
        const settings = { collections, vectors, updates: documents.updates, fieldIndexes };
        return done(createCollectionWithIndexes(settings, op.tenantId, op.body, Math.floor(op.now / 1000)));
      }
      case 'delete-collection': {
        const { value, tail } = documents.deletes.deleteCollection(op.tenantId, op.name);
        return { outcome: { value }, tail };
      }
      case 'documents': {
        const changes: DocumentChanges = {
          setVisibility: (...args) => documents.access.setVisibility(...args),
          updateAcl: (...args) => documents.access.updateAcl(...args),
          engage: (...args) => documents.engagement.engage(...args),
        };
        return done((changes[op.method] as (...args: unknown[]) => unknown)(...op.args));
      }
      case 'update-collection': {
        const { vectors, fieldIndexes } = this.#deps;
        const settings = { collections, vectors, updates: documents.updates, fieldIndexes };
        return done(updateCollectionSettings(settings, op.tenantId, op.name, op.body, Math.floor(op.now / 1000)));
      }
      case 'delete-some': {
        const { value, tail } = documents.deletes.deleteSome(op.viewer, op.ids, op.permanent, op.decidedOn);
        return { outcome: { value }, tail };
      }
      case 'create-api-key':
        return done(apiKeys.insert({ ...op.key, secretHash: Buffer.from(op.key.secretHash, 'hex') }, op.maxPerUser));
      case 'maintenance':
        return done(op.method === 'refresh' ? maintenance.refresh(op.tenantId) : maintenance.recluster(op.tenantId));
      case 'revoke-api-key':
        return done(apiKeys.revoke(op));
      case 'mail':
        // A mark of a relay whose lease was taken over since (a newer token applied): refused here as everywhere.
        if (op.fence && !this.#fences.admit(op.fence.duty, op.fence.token)) return done(fencedOut);
        return done((outbox[op.method] as (...args: unknown[]) => unknown).apply(outbox, op.args));
      case 'restore-snapshot': {
        // Restored by prepare, right before; recorded now.
        const outcome = this.#prepared.get(op.id);
        if (!outcome) throw new Error(`the restore of ${op.snapshotId} was not prepared on this node`);
        this.#prepared.delete(op.id);
        if ('error' in outcome) throw outcome.error;
        return done(outcome.value);
      }
      case 'job':
        return done((jobs[op.method] as (...args: unknown[]) => unknown).apply(jobs, op.args));
    }
  }
}
