import type { Db } from '../storage/database.js';
import { StatementCache } from '../storage/statement-cache.js';
import type { TransactionListener } from '../storage/transaction.js';
import { Bm25Index } from './bm25-index.js';

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
 * Queries of any of several words (match queries, fuzzy expansions) are ranked by an in-memory BM25 index per
 * tenant (Bm25Index), built from the FTS5 table on the tenant's first such query and kept in step with it: writes
 * inside a transaction are journalled and applied when it commits (run writes through `transaction()` with this
 * index as a listener); a rollback drops the tenants it touched, which are rebuilt on their next query.
 */
/** BM25 column weights: a word in the title counts twice a word in the content. */
export const titleWeight = 2;
export const contentWeight = 1;

type JournalEntry =
  | {
      readonly kind: 'add';
      readonly tenantId: string;
      readonly rowid: number;
      readonly docSeq: number;
      readonly title: string;
      readonly content: string;
    }
  | { readonly kind: 'remove'; readonly tenantId: string; readonly rowid: number };

export class TextIndex implements TransactionListener {
  readonly #db: Db;
  readonly #sql: StatementCache;
  readonly #keys = new Map<string, number>();
  /** In-memory BM25 indexes of the tenants queried so far. */
  readonly #ranked = new Map<string, Bm25Index>();
  /** Writes to loaded tenants not yet committed. */
  #journal: JournalEntry[] = [];

  constructor(db: Db) {
    this.#db = db;
    this.#sql = new StatementCache(db);
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
    if (this.#ranked.has(tenantId)) this.#journal.push({ kind: 'add', tenantId, rowid, docSeq, title, content });
  }

  delete(tenantId: string, rowids: readonly number[]): void {
    const t = this.tables(tenantId);
    if (!t || rowids.length === 0) return;
    const fts = this.#sql.get(`DELETE FROM ${t.fts} WHERE rowid = ?`);
    const words = this.#sql.get(`DELETE FROM ${t.words} WHERE rowid = ?`);
    const loaded = this.#ranked.has(tenantId);
    for (const rowid of rowids) {
      fts.run(rowid);
      words.run(rowid);
      if (loaded) this.#journal.push({ kind: 'remove', tenantId, rowid });
    }
  }

  /** Empties the tenant's text index (a rebuild follows). */
  clear(tenantId: string): void {
    const t = this.tables(tenantId);
    if (!t) return;
    this.#db.exec(`DELETE FROM ${t.fts}; DELETE FROM ${t.words};`);
    this.#ranked.delete(tenantId); // rebuilt from the table on its next query
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
   * The tenant's in-memory BM25 index, built from its FTS5 table when first needed; undefined when the tenant has
   * no text index yet.
   */
  ranked(tenantId: string): Bm25Index | undefined {
    if (this.#journal.length > 0 && !this.#db.inTransaction) this.rollback(); // a write outside transaction()
    const loaded = this.#ranked.get(tenantId);
    if (loaded) return loaded;
    const t = this.tables(tenantId);
    if (!t) return undefined;
    const index = new Bm25Index({ title: titleWeight, content: contentWeight });
    const rows = this.#db
      .prepare(
        `SELECT f.rowid AS seq, c.doc_seq AS doc, f.title, f.content FROM ${t.fts} f JOIN chunks c ON c.seq = f.rowid`,
      )
      .iterate() as IterableIterator<{ seq: number; doc: number; title: string; content: string }>;
    for (const row of rows) index.add(row.seq, row.doc, row.title, row.content);
    this.#ranked.set(tenantId, index);
    return index;
  }

  /** Applies the committed writes to the loaded in-memory indexes. */
  commit(): void {
    const journal = this.#journal;
    this.#journal = [];
    for (const entry of journal) {
      const index = this.#ranked.get(entry.tenantId);
      if (!index) continue;
      if (entry.kind === 'add') index.add(entry.rowid, entry.docSeq, entry.title, entry.content);
      else index.remove(entry.rowid);
    }
  }

  /** Forgets the writes of a rolled-back transaction: the tenants they touched are rebuilt on their next query. */
  rollback(): void {
    for (const entry of this.#journal) this.#ranked.delete(entry.tenantId);
    this.#journal = [];
  }
}
