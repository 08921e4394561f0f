import type { Db } from '../storage/database.js';
import { StatementCache } from '../storage/statement-cache.js';

/**
 * The store's side of stored files: the keys owed for deletion (`file_deletions`), written in the transaction that
 * drops the rows naming them and removed once the object is gone (see DocumentFiles).
 *
 * @example const owed = new FileDeletions(db); owed.owe(['t/doc/1']); owed.keys(); // ['t/doc/1']
 */
export class FileDeletions {
  readonly #sql: StatementCache;

  constructor(db: Db) {
    this.#sql = new StatementCache(db);
  }

  /** Owes `keys` for deletion (a key owed already stays owed once). */
  owe(keys: Iterable<string>): void {
    const insert = this.#sql.get('INSERT OR IGNORE INTO file_deletions (key) VALUES (?)');
    for (const key of keys) insert.run(key);
  }

  /** Every key owed, in key order. */
  keys(): string[] {
    return this.#sql.get('SELECT key FROM file_deletions ORDER BY key').pluck().all() as string[];
  }

  /** Owes `keys` no more: deleted, or named again by rows (a restore brings back what a purge owed). */
  forget(keys: Iterable<string>): void {
    const remove = this.#sql.get('DELETE FROM file_deletions WHERE key = ?');
    for (const key of keys) remove.run(key);
  }
}
