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
