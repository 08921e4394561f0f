import { randomUUID } from 'node:crypto';
import type { Db } from '../storage/database.js';
import { FileDeletions } from './file-deletions.js';
import { keySegment, type ObjectStore, type StoredObject } from './object-store.js';

/** What a pass over the deletions still owed did. */
export interface DeletionReport {
  readonly deleted: number;
  readonly pending: number;
  /** Why the store refused, when some remain. */
  readonly error: Error | null;
}

/**
 * The files uploaded with documents (`file_content`), kept by the storage provider under
 * `<tenant>/<document id>/<random id>`: a fresh key per write, so a failed write can remove what it uploaded
 * without touching an object of the version that stays, and a purge deletes exact keys. Deletions go through the
 * `file_deletions` table: written in the purging transaction, removed once the object is gone, so a store that
 * is down at that moment is cleaned up at the next pass (each purge, and each start) rather than left with orphans.
 */
export class DocumentFiles {
  readonly store: ObjectStore;
  readonly #owed: FileDeletions;
  #othersDelete = false;

  constructor(db: Db, store: ObjectStore) {
    this.store = store;
    this.#owed = new FileDeletions(db);
  }

  /** Stores the bytes of a new version of a document; answers the key to record with it. */
  async upload(tenantId: string, docId: string, bytes: Buffer): Promise<string> {
    const key = `${keySegment(tenantId)}/${keySegment(docId)}/${randomUUID()}`;
    await this.store.put(key, bytes);
    return key;
  }

  open(key: string): Promise<StoredObject | null> {
    return this.store.get(key);
  }

  /** Records keys to delete; call inside the transaction that drops their documents. */
  owe(keys: readonly string[]): void {
    if (!this.#othersDelete) this.#owed.owe(keys);
  }

  /**
   * Runs `work` with the deletions it owes left to another node: in cluster mode the store is shared, and only the
   * node that took an operation deletes the objects it purges (once), while every node applies its rows.
   */
  othersDelete<T>(work: () => T): T {
    const before = this.#othersDelete;
    this.#othersDelete = true;
    try {
      return work();
    } finally {
      this.#othersDelete = before;
    }
  }

  /** Deletes now what a failed write uploaded; what the store refuses is owed for the next pass. */
  async discard(keys: readonly string[]): Promise<void> {
    if (keys.length === 0) return;
    try {
      await this.store.delete(keys);
    } catch {
      this.owe(keys);
    }
  }

  /** Deletes every object owed. Never throws: what is left waits for the next pass. */
  async deleteOwed(): Promise<DeletionReport> {
    const keys = this.#owed.keys();
    let deleted = 0;
    for (let start = 0; start < keys.length; start += 1000) {
      const batch = keys.slice(start, start + 1000);
      try {
        await this.store.delete(batch);
      } catch (error) {
        return { deleted, pending: keys.length - deleted, error: error as Error };
      }
      this.#owed.forget(batch);
      deleted += batch.length;
    }
    return { deleted, pending: 0, error: null };
  }
}
