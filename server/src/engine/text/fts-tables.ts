import type { Db } from '../storage/database.js';
import { StatementCache } from '../storage/statement-cache.js';
import type { TextTables } from './text-index.js';
import { documentLanguage } from './languages.js';
import { analysed } from './tokenize.js';

/**
 * `fts_<k>` and `hidden_<k>` hold analysed text (tokenize.ts: the terms, folded and stemmed in each document's
 * language, separated by spaces), so FTS5 only splits it: its tokens are the in-memory index's terms. Tables of
 * analysis version 1 (`porter`, over the raw text) are rebuilt when the store opens (TextIndex).
 */
const stemmed = "tokenize = 'unicode61 remove_diacritics 0'";
/** The SQL function that analyses a text in a document's lang_code: fillRange runs it in its INSERT … SELECT. */
const analyseSql = 'godb_analysed';

/** A stored row of a tenant's FTS5 table (a chunk) with its document's seq, as a BM25 build reads it. */
export interface StoredChunkText {
  readonly seq: number;
  readonly doc: number;
  readonly title: string;
  readonly content: string;
}

/**
 * The text store's side of writes and builds: every SQL statement that creates, fills, empties and reads back a
 * tenant's FTS5 tables (see TextTables) and the key table naming them (`tenant_text_indexes`). Searches read them
 * through FtsRows. Statements are prepared once per SQL text (StatementCache); SQLite prepares a cached statement
 * again by itself once a dropped table exists again.
 *
 * @example const tables = new FtsTables(db); tables.create(t, { title: 2, content: 1 }); tables.insert(t.fts, 1, 'A', 'b');
 */
export class FtsTables {
  readonly #db: Db;
  readonly #sql: StatementCache;

  constructor(db: Db) {
    this.#db = db;
    this.#sql = new StatementCache(db);
    db.function(analyseSql, { deterministic: true }, (text: unknown, langCode: unknown) =>
      analysed(String(text ?? ''), documentLanguage(typeof langCode === 'string' ? langCode : undefined)),
    );
  }

  /** The keys whose `fts_<k>` table predates per-language analysis (FTS5's porter tokenizer over the raw text). */
  keysOfOlderAnalysis(): number[] {
    return this.#sql
      .get(
        `SELECT t.key FROM tenant_text_indexes t JOIN sqlite_master m ON m.type = 'table' AND m.name = 'fts_' || t.key
         WHERE m.sql LIKE '%porter%'`,
      )
      .pluck()
      .all() as number[];
  }

  /** The tenant of a table key. */
  tenantOf(key: number): string | undefined {
    return this.#sql.get('SELECT tenant_id FROM tenant_text_indexes WHERE key = ?').pluck().get(key) as
      string | undefined;
  }

  /** The table key of a tenant, or undefined when it has no text index yet. */
  key(tenantId: string): number | undefined {
    return this.#sql.get('SELECT key FROM tenant_text_indexes WHERE tenant_id = ?').pluck().get(tenantId) as
      number | undefined;
  }

  /** Gives the tenant the next free key (inside the caller's transaction); answers it. */
  addKey(tenantId: string): number {
    const key =
      (this.#sql.get('SELECT coalesce(max(key), 0) + 1 FROM tenant_text_indexes').pluck().get() as number) | 0 || 1;
    this.#sql.get('INSERT INTO tenant_text_indexes (tenant_id, key) VALUES (?, ?)').run(tenantId, key);
    return key;
  }

  /** The keys whose tables predate the split by visibility (no `hidden_<k>` table yet). */
  keysWithoutHidden(): number[] {
    return this.#sql
      .get(
        `SELECT key FROM tenant_text_indexes t
         WHERE NOT EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'hidden_' || t.key)`,
      )
      .pluck()
      .all() as number[];
  }

  /** Creates a tenant's tables, ranked by FTS5's `bm25()` with these column weights. */
  create(t: TextTables, weights: { readonly title: number; readonly content: number }): void {
    this.#db.exec(`
      CREATE VIRTUAL TABLE ${t.fts} USING fts5(title, content, ${stemmed});
      CREATE VIRTUAL TABLE ${t.words} USING fts5(title, content, content = '', contentless_delete = 1, tokenize = 'unicode61 remove_diacritics 2');
      CREATE VIRTUAL TABLE ${t.vocab} USING fts5vocab(${t.words}, 'row');
      INSERT INTO ${t.fts} (${t.fts}, rank) VALUES ('rank', 'bm25(${weights.title}, ${weights.content})');
    `);
    this.createHidden(t);
  }

  /** Creates the tables added by the split by visibility: `hidden_<k>` and the public vocabulary. */
  createHidden(t: TextTables): void {
    this.#db.exec(`
      CREATE VIRTUAL TABLE ${t.hidden} USING fts5(title, content, ${stemmed});
      CREATE VIRTUAL TABLE ${t.publicVocab} USING fts5vocab(${t.fts}, 'row');
    `);
  }

  /** Moves the chunks of private and shared documents from `fts_<k>` to `hidden_<k>` (tables older than the split). */
  moveHidden(t: TextTables): void {
    const hidden = `SELECT c.seq FROM chunks c JOIN documents d ON d.seq = c.doc_seq WHERE d.visibility <> 'public'`;
    this.#db.exec(`
      INSERT INTO ${t.hidden} (rowid, title, content)
        SELECT rowid, title, content FROM ${t.fts} WHERE rowid IN (${hidden});
      DELETE FROM ${t.fts} WHERE rowid IN (SELECT rowid FROM ${t.hidden});
    `);
  }

  /** Drops a tenant's tables (`recreate` follows). */
  drop(t: TextTables): void {
    for (const table of [t.publicVocab, t.vocab, t.fts, t.hidden, t.words])
      this.#db.exec(`DROP TABLE IF EXISTS ${table}`);
  }

  /** Empties a tenant's tables. */
  clear(t: TextTables): void {
    this.#db.exec(`DELETE FROM ${t.fts}; DELETE FROM ${t.hidden}; DELETE FROM ${t.words};`);
  }

  /** Merges the segments of a tenant's tables. */
  optimize(t: TextTables): void {
    this.#db.exec(
      [t.fts, t.hidden, t.words].map((table) => `INSERT INTO ${table} (${table}) VALUES ('optimize');`).join(' '),
    );
  }

  /** Writes a chunk's row (row id = chunk seq) into one FTS5 table (analysed text for fts and hidden, raw for words). */
  insert(table: string, rowid: number, title: string, content: string): void {
    this.#sql.get(`INSERT INTO ${table} (rowid, title, content) VALUES (?, ?, ?)`).run(rowid, title, content);
  }

  /** A deleter of chunk rows from a tenant's three tables (one call per row). */
  deleter(t: TextTables): (rowid: number) => void {
    const fts = this.#sql.get(`DELETE FROM ${t.fts} WHERE rowid = ?`);
    const hidden = this.#sql.get(`DELETE FROM ${t.hidden} WHERE rowid = ?`);
    const words = this.#sql.get(`DELETE FROM ${t.words} WHERE rowid = ?`);
    return (rowid) => {
      fts.run(rowid);
      hidden.run(rowid);
      words.run(rowid);
    };
  }

  /** A mover of chunk rows from table `from` to `to`: answers false for a row `from` does not hold. */
  mover(from: string, to: string): (rowid: number) => boolean {
    const read = this.#sql.get(`SELECT title, content FROM ${from} WHERE rowid = ?`);
    const remove = this.#sql.get(`DELETE FROM ${from} WHERE rowid = ?`);
    const insert = this.#sql.get(`INSERT INTO ${to} (rowid, title, content) VALUES (?, ?, ?)`);
    return (rowid) => {
      const row = read.get(rowid) as { title: string; content: string } | undefined;
      if (!row) return false;
      remove.run(rowid);
      insert.run(rowid, row.title, row.content);
      return true;
    };
  }

  /**
   * Indexes the tenant's live chunks with a seq in (`after`, `through`], in three INSERT … SELECTs that walk that seq
   * range of `chunks` (NOT INDEXED: a tenant index would read every chunk of the tenant to find those of the range);
   * answers the chunks indexed.
   */
  fillRange(t: TextTables, tenantId: string, after: number, through: number): number {
    const params = { tenant: tenantId, after, through };
    const slice = `FROM chunks c NOT INDEXED JOIN documents d ON d.seq = c.doc_seq
      WHERE c.seq > :after AND c.seq <= :through AND c.tenant_id = :tenant AND d.deleted_at IS NULL AND d.superseded = 0`;
    this.#sql
      .get(
        `INSERT INTO ${t.fts} (rowid, title, content) SELECT c.seq, ${analysedColumns} ${slice} AND d.visibility = 'public'`,
      )
      .run(params);
    this.#sql
      .get(
        `INSERT INTO ${t.hidden} (rowid, title, content) SELECT c.seq, ${analysedColumns} ${slice} AND d.visibility <> 'public'`,
      )
      .run(params);
    return this.#sql
      .get(`INSERT INTO ${t.words} (rowid, title, content) SELECT c.seq, d.title, c.content ${slice}`)
      .run(params).changes;
  }

  /** The words of a tenant's vocabulary matching a GLOB `pattern`, starting with `prefix`, or all. */
  vocabulary(t: TextTables, match: { prefix?: string; pattern?: string }): string[] {
    if (match.pattern !== undefined)
      return this.#sql.get(`SELECT term FROM ${t.vocab} WHERE term GLOB ?`).pluck().all(match.pattern) as string[];
    if (match.prefix)
      return this.#sql
        .get(`SELECT term FROM ${t.vocab} WHERE term >= ? AND term < ?`)
        .pluck()
        .all(match.prefix, `${match.prefix}\u{10ffff}`) as string[];
    return this.#sql.get(`SELECT term FROM ${t.vocab}`).pluck().all() as string[];
  }

  /** FTS5's averages record of `fts_<k>` (row 1 of `fts_<k>_data`), or undefined before the first commit. */
  averages(t: TextTables): Buffer | undefined {
    return this.#sql.get(`SELECT block FROM ${t.fts}_data WHERE id = 1`).pluck().get() as Buffer | undefined;
  }

  /** A counter of the public chunks matching an FTS5 expression. */
  publicMatches(t: TextTables): (match: string) => number {
    const count = this.#sql.get(`SELECT count(*) FROM ${t.fts} WHERE ${t.fts} MATCH ?`).pluck();
    return (match) => count.get(match) as number;
  }

  /** A lookup of how many public chunks hold a stem (FTS5's public vocabulary; undefined: none). */
  publicVocabulary(t: TextTables): (stem: string) => number | undefined {
    const lookup = this.#sql.get(`SELECT doc FROM ${t.publicVocab} WHERE term = ?`).pluck();
    return (stem) => lookup.get(stem) as number | undefined;
  }

  /**
   * A reader of an FTS5 table's stored rows (its `_content` table: id, then c0, c1 … per column — title, content) by
   * primary key: the next `limit` after chunk seq `after`, with their documents. Paging the FTS5 table itself by
   * `rowid > ?` costs time in proportion to the position (FTS5 reads its rows from the first: 0.8 ms a page at the
   * start, 300 ms at a million rows); a primary key range costs the same anywhere.
   */
  storedRows(table: string): (after: number, limit: number) => StoredChunkText[] {
    const page = this.#sql.get(
      `SELECT x.id AS seq, c.doc_seq AS doc, x.c0 AS title, x.c1 AS content
         FROM ${table}_content x CROSS JOIN chunks c ON c.seq = x.id
        WHERE x.id > ? ORDER BY x.id LIMIT ?`,
    );
    return (after, limit) => page.all(after, limit) as StoredChunkText[];
  }

  /**
   * A reader of the chunk seqs an FTS5 table stores in a seq range (`after`, `through`], ascending (by primary key):
   * the first `limit` of them.
   */
  storedIds(table: string): (after: number, through: number, limit: number) => number[] {
    const ids = this.#sql.get(`SELECT id FROM ${table}_content WHERE id > ? AND id <= ? ORDER BY id LIMIT ?`).pluck();
    return (after, through, limit) => ids.all(after, through, limit) as number[];
  }

  /**
   * How many rows an FTS5 table holds, from its averages record (see `averages`; a count of its stored rows reads
   * every page of them: seconds at a million chunks). As of the last commit.
   */
  storedCount(table: string): number {
    const block = this.#sql.get(`SELECT block FROM ${table}_data WHERE id = 1`).pluck().get() as Buffer | undefined;
    return block && block.length > 0 ? (sqliteVarints(block)[0] ?? 0) : 0;
  }
}

/** A chunk's title and content as `fts_<k>` and `hidden_<k>` hold them, in fillRange's SELECT (`d`, `c`). */
const langCode = `json_extract(d.fields, '$.lang_code')`;
const analysedColumns = `${analyseSql}(d.title, ${langCode}), ${analyseSql}(c.content, ${langCode})`;

/** SQLite's variable-length integers, end to end (big-endian groups of 7 bits; a ninth byte holds 8). */
export function sqliteVarints(bytes: Uint8Array): number[] {
  const out: number[] = [];
  let at = 0;
  while (at < bytes.length) {
    let value = 0;
    let i = 0;
    for (; i < 8; i += 1) {
      const byte = bytes[at++]!;
      value = value * 128 + (byte & 0x7f);
      if ((byte & 0x80) === 0) break;
    }
    if (i === 8) value = value * 256 + bytes[at++]!;
    out.push(value);
  }
  return out;
}
