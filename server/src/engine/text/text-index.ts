import type { Db } from '../storage/database.js';
import { StatementCache } from '../storage/statement-cache.js';
import type { TransactionListener } from '../storage/transaction.js';
import type { Bm25Index } from './bm25-index.js';
import { Bm25Indexes } from './bm25-indexes.js';

/**
 * Full-text indexes, one set per tenant so that ranking statistics (BM25's document frequencies) and the
 * vocabulary used by fuzzy search and autocomplete never mix tenants:
 *
 * - `fts_<k>`: FTS5 over chunk title and content with the Porter stemmer (ranking);
 * - `words_<k>`: a contentless FTS5 index of the unstemmed words, and `vocab_<k>` its vocabulary with document
 *   counts (fuzzy expansion, autocomplete).
 *
 * Row ids are chunk seqs. Tables are created on a tenant's first document.
 *
 * Word and phrase queries are ranked by an in-memory BM25 index per tenant, kept in step with the FTS5 table (see
 * Bm25Indexes): run writes through `transaction()` with this index as a listener.
 */
/** BM25 column weights: a word in the title counts twice a word in the content. */
export const titleWeight = 2;
export const contentWeight = 1;

export class TextIndex implements TransactionListener {
  readonly #db: Db;
  readonly #sql: StatementCache;
  readonly #keys = new Map<string, number>();
  readonly #bm25: Bm25Indexes;

  constructor(db: Db) {
    this.#db = db;
    this.#sql = new StatementCache(db);
    this.#bm25 = new Bm25Indexes(db, { title: titleWeight, content: contentWeight });
  }

  /** The table key of a tenant, or undefined when it has no text index yet. */
  key(tenantId: string): number | undefined {
    const cached = this.#keys.get(tenantId);
    if (cached !== undefined) return cached;
    const key = this.#sql.get('SELECT key FROM tenant_text_indexes WHERE tenant_id = ?').pluck().get(tenantId) as
      number | undefined;
    if (key !== undefined) this.#keys.set(tenantId, key);
    return key;
  }

  /** Names of the tenant's tables, or undefined when it has none yet. */
  tables(tenantId: string): { fts: string; words: string; vocab: string } | undefined {
    const key = this.key(tenantId);
    return key === undefined ? undefined : { fts: `fts_${key}`, words: `words_${key}`, vocab: `vocab_${key}` };
  }

  /** Creates the tenant's tables if needed (inside the caller's transaction). */
  ensure(tenantId: string): { fts: string; words: string; vocab: string } {
    const existing = this.tables(tenantId);
    if (existing) return existing;
    const key =
      (this.#sql.get('SELECT coalesce(max(key), 0) + 1 FROM tenant_text_indexes').pluck().get() as number) | 0 || 1;
    this.#sql.get('INSERT INTO tenant_text_indexes (tenant_id, key) VALUES (?, ?)').run(tenantId, key);
    this.#db.exec(`
      CREATE VIRTUAL TABLE fts_${key} USING fts5(title, content, tokenize = 'porter unicode61 remove_diacritics 2');
      CREATE VIRTUAL TABLE words_${key} USING fts5(title, content, content = '', contentless_delete = 1, tokenize = 'unicode61 remove_diacritics 2');
      CREATE VIRTUAL TABLE vocab_${key} USING fts5vocab(words_${key}, 'row');
      INSERT INTO fts_${key} (fts_${key}, rank) VALUES ('rank', 'bm25(${titleWeight}, ${contentWeight})');
    `);
    this.#keys.set(tenantId, key);
    return { fts: `fts_${key}`, words: `words_${key}`, vocab: `vocab_${key}` };
  }

  /** Indexes a chunk (row id = chunk seq) of the document `docSeq`. */
  insert(tenantId: string, rowid: number, docSeq: number, title: string, content: string): void {
    const t = this.ensure(tenantId);
    this.#sql.get(`INSERT INTO ${t.fts} (rowid, title, content) VALUES (?, ?, ?)`).run(rowid, title, content);
    this.#sql.get(`INSERT INTO ${t.words} (rowid, title, content) VALUES (?, ?, ?)`).run(rowid, title, content);
    this.#bm25.added(tenantId, rowid, docSeq, title, content);
  }

  delete(tenantId: string, rowids: readonly number[]): void {
    const t = this.tables(tenantId);
    if (!t || rowids.length === 0) return;
    const fts = this.#sql.get(`DELETE FROM ${t.fts} WHERE rowid = ?`);
    const words = this.#sql.get(`DELETE FROM ${t.words} WHERE rowid = ?`);
    for (const rowid of rowids) {
      fts.run(rowid);
      words.run(rowid);
      this.#bm25.removed(tenantId, rowid);
    }
  }

  /** Empties the tenant's text index (a rebuild follows). */
  clear(tenantId: string): void {
    const t = this.tables(tenantId);
    if (!t) return;
    this.#db.exec(`DELETE FROM ${t.fts}; DELETE FROM ${t.words};`);
    this.#bm25.cleared(tenantId);
  }

  /** Merges the index's segments (after a rebuild). */
  optimize(tenantId: string): void {
    const t = this.tables(tenantId);
    if (!t) return;
    this.#db.exec(
      `INSERT INTO ${t.fts} (${t.fts}) VALUES ('optimize'); INSERT INTO ${t.words} (${t.words}) VALUES ('optimize');`,
    );
  }

  /**
   * The tenant's in-memory BM25 index when it is loaded; undefined while it loads in the background (started by
   * this call) or when the tenant has no text index. Rank with FTS5's bm25() meanwhile: the scores are the same.
   */
  ranked(tenantId: string): Bm25Index | undefined {
    const t = this.tables(tenantId);
    return t ? this.#bm25.ready(tenantId, t.fts) : undefined;
  }

  /** The tenant's in-memory BM25 index once it has loaded; undefined when the tenant has no text index. */
  async loaded(tenantId: string): Promise<Bm25Index | undefined> {
    const t = this.tables(tenantId);
    return t ? this.#bm25.loaded(tenantId, t.fts) : undefined;
  }

  commit(): void {
    this.#bm25.commit();
  }

  rollback(): void {
    this.#bm25.rollback();
  }

  close(): void {
    this.#bm25.close();
  }
}
