import type { Db } from './database.js';

/** In-memory state derived from the store that must follow its transactions (see TextIndex). */
export interface TransactionListener {
  /** The transaction committed: apply what it wrote. */
  commit(): void;
  /** The transaction (or a savepoint inside it) rolled back: forget what it wrote. */
  rollback(): void;
}

/**
 * Runs `write` in a transaction and tells the listeners whether it committed. Nested inside another transaction,
 * it runs as a savepoint: the outermost call commits, and a failed savepoint still makes the listeners forget,
 * since they cannot undo part of a journal.
 */
export function transaction<T>(db: Db, listeners: readonly TransactionListener[], write: () => T): T {
  const nested = db.inTransaction;
  let result: T;
  try {
    result = db.transaction(write)();
  } catch (error) {
    for (const listener of listeners) listener.rollback();
    throw error;
  }
  if (!nested) for (const listener of listeners) listener.commit();
  return result;
}
