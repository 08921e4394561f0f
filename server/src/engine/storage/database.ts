import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { migrations } from './migrations.js';

export type Db = Database.Database;

export interface OpenDatabaseOptions {
  /** Folder for the database file; `:memory:` keeps everything in memory (tests of the engine only). */
  readonly dataDir: string;
}

/**
 * Opens the embedded store: SQLite in WAL mode with `synchronous = FULL`, so a write is acknowledged only once
 * it is durable, and foreign keys on. Applies pending migrations.
 *
 * @example const db = openDatabase({ dataDir: './data' });
 */
export function openDatabase(options: OpenDatabaseOptions): Db {
  let file = ':memory:';
  if (options.dataDir !== ':memory:') {
    mkdirSync(options.dataDir, { recursive: true });
    file = join(options.dataDir, 'godb.sqlite');
  }
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  // Searches read scattered rows (candidate documents, vectors for exact rescoring): a memory-mapped file makes
  // each page a memory access instead of a read() call, and a 64 MiB page cache keeps the B-tree interiors hot.
  db.pragma('mmap_size = 1073741824');
  db.pragma('cache_size = -65536');
  migrate(db);
  return db;
}

/** Whether the store is open and answers a statement (the health checks). */
export function answers(db: Db): boolean {
  try {
    return db.open && db.prepare('SELECT 1 AS ok').get() !== undefined;
  } catch {
    return false;
  }
}

/** Applies the migrations newer than the database's `user_version`, each in its own transaction. */
export function migrate(db: Db): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  for (const migration of migrations) {
    if (migration.version <= current) continue;
    db.transaction(() => {
      db.exec(migration.sql);
      db.pragma(`user_version = ${migration.version}`);
    })();
  }
}

/**
 * A read-only connection to a store's file, tuned like openDatabase's for searches' scattered reads (a search
 * worker's: see search/search-pool/).
 */
export function openReadOnly(file: string): Db {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  db.pragma('busy_timeout = 5000');
  db.pragma('mmap_size = 1073741824');
  db.pragma('cache_size = -65536');
  return db;
}

/**
 * Runs `read` in one read transaction: every row it reads, across its awaits, is of one committed state (WAL mode:
 * the state at its first read), whatever commits meanwhile on other connections.
 */
export async function inReadTransaction<T>(db: Db, read: () => Promise<T>): Promise<T> {
  db.exec('BEGIN');
  try {
    return await read();
  } finally {
    db.exec('COMMIT');
  }
}
