import type { Db } from '../storage/database.js';
import type { TransactionListener } from '../storage/transaction.js';
import type { Bm25Index } from './bm25-index.js';
import { Bm25Indexes, type Bm25IndexesOptions } from './bm25-indexes.js';
import type { CorpusStats } from './bm25-score.js';
import { FtsTables, sqliteVarints } from './fts-tables.js';
import type { AnalysisLanguage } from '@godb/contract';
import { documentLanguage } from './languages.js';
import { analysed, stem } from './tokenize.js';

/** BM25 column weights: a word in the title counts twice a word in the content. */
export const titleWeight = 2;
export const contentWeight = 1;
const weights = { title: titleWeight, content: contentWeight };

/** The names of a tenant's text tables (k is the tenant's key). */
export interface TextTables {
  /**
   * `fts_<k>`: FTS5 over the analysed title and content (terms, see tokenize.ts) of the live chunks of public
   * documents.
   */
  readonly fts: string;
  /** `hidden_<k>`: the same over the live chunks of private and shared documents. */
  readonly hidden: string;
  /** `words_<k>`: contentless FTS5 of the unstemmed words of every live chunk. */
  readonly words: string;
  /** `vocab_<k>`: the vocabulary of `words_<k>` (fuzzy expansion, wildcards, autocomplete candidates). */
  readonly vocab: string;
  /** `pvocab_<k>`: the vocabulary of `fts_<k>` (stems, with the number of public chunks holding each). */
  readonly publicVocab: string;
}

const tablesOf = (key: number): TextTables => ({
  fts: `fts_${key}`,
  hidden: `hidden_${key}`,
  words: `words_${key}`,
  vocab: `vocab_${key}`,
  publicVocab: `pvocab_${key}`,
});

/**
 * Full-text indexes, one set per tenant so that ranking statistics and the vocabulary used by fuzzy search and
 * autocomplete never mix tenants (see TextTables). Row ids are chunk seqs. Tables are created on a tenant's first
 * document.
 *
 * The stemmed text is split by visibility: `fts_<k>` holds the chunks of public documents, `hidden_<k>` the others,
 * and a visibility change moves a document's rows. BM25's statistics (chunk count, average length, document
 * frequencies) are those of the public chunks only — the same for every caller, and moved by nothing a caller may
 * not read (see CorpusStats) — so FTS5 keeps them for us: its own `bm25()` over `fts_<k>` scores public chunks
 * with them, its totals give N and the average length, `pvocab_<k>` the per-word counts. Splitting, rather than
 * adding a public copy, writes each chunk once.
 *
 * Word, phrase and wildcard queries are ranked by an in-memory BM25 index per tenant, kept in step with the FTS5
 * tables (see Bm25Indexes): run writes through `transaction()` with this index as a listener.
 */
export class TextIndex implements TransactionListener {
  readonly #db: Db;
  readonly #tables: FtsTables;
  readonly #keys = new Map<string, number>();
  readonly #bm25: Bm25Indexes;

  /**
   * `options`: memory for the in-memory BM25 indexes over all tenants (least recently used evicted beyond), and
   * where and when they are checkpointed (see Bm25Indexes).
   */
  constructor(db: Db, options: Bm25IndexesOptions = {}) {
    this.#db = db;
    this.#tables = new FtsTables(db);
    this.#bm25 = new Bm25Indexes(db, this.#tables, weights, options);
    this.#splitOlderTenants();
    this.#reanalyseOlderTenants();
  }

  /** Memory of the in-memory BM25 indexes (estimated), their budget and evictions since start. */
  memory(): { bytes: number; budget: number; evictions: number; tenants: number } {
    return this.#bm25.memory();
  }

  /** The table key of a tenant, or undefined when it has no text index yet. */
  key(tenantId: string): number | undefined {
    const cached = this.#keys.get(tenantId);
    if (cached !== undefined) return cached;
    const key = this.#tables.key(tenantId);
    if (key !== undefined) this.#keys.set(tenantId, key);
    return key;
  }

  /** Names of the tenant's tables, or undefined when it has none yet. */
  tables(tenantId: string): TextTables | undefined {
    const key = this.key(tenantId);
    return key === undefined ? undefined : tablesOf(key);
  }

  /**
   * Words of the tenant's vocabulary (unstemmed, every document's, readable or not: callers check access):
   * starting with `prefix`, or matching a GLOB `pattern`, or all.
   */
  vocabulary(tenantId: string, match: { prefix?: string; pattern?: string } = {}): string[] {
    const t = this.tables(tenantId);
    return t ? this.#tables.vocabulary(t, match) : [];
  }

  /** Creates the tenant's tables if needed (inside the caller's transaction). */
  ensure(tenantId: string): TextTables {
    const existing = this.tables(tenantId);
    if (existing) return existing;
    const key = this.#tables.addKey(tenantId);
    const t = tablesOf(key);
    this.#tables.create(t, weights);
    this.#keys.set(tenantId, key);
    return t;
  }

  /**
   * Tenants whose text tables predate the split by visibility (every chunk in `fts_<k>`) get their `hidden_<k>`
   * table, and the chunks of their private and shared documents move there: once, when the store opens.
   */
  #splitOlderTenants(): void {
    for (const key of this.#tables.keysWithoutHidden()) {
      const t = tablesOf(key);
      this.#db.transaction(() => {
        this.#tables.createHidden(t);
        this.#tables.moveHidden(t);
      })();
    }
  }

  /**
   * Tenants whose text tables predate per-language analysis (FTS5's porter tokenizer over the raw text, analysis
   * version 1) get them again, filled with the analysed text of their live chunks: once, when the store opens (an
   * upgrade). Their BM25 checkpoints, of the older version, are not read back but rebuilt from the new tables.
   */
  #reanalyseOlderTenants(): void {
    for (const key of this.#tables.keysOfOlderAnalysis()) {
      const tenantId = this.#tables.tenantOf(key);
      if (tenantId === undefined) continue;
      this.#db.transaction(() => this.reindex(tenantId))();
      this.optimize(tenantId);
    }
  }

  /**
   * Indexes a chunk (row id = chunk seq) of the document `docSeq`, public or not, analysed in its `lang_code`'s
   * language (see documentLanguage).
   */
  insert(
    tenantId: string,
    rowid: number,
    docSeq: number,
    title: string,
    content: string,
    isPublic: boolean,
    langCode?: string | null,
  ): void {
    const t = this.ensure(tenantId);
    const language = documentLanguage(langCode);
    const terms = { title: analysed(title, language), content: analysed(content, language) };
    this.#tables.insert(isPublic ? t.fts : t.hidden, rowid, terms.title, terms.content);
    this.#tables.insert(t.words, rowid, title, content);
    this.#bm25.added(tenantId, rowid, docSeq, terms.title, terms.content, isPublic);
  }

  delete(tenantId: string, rowids: readonly number[]): void {
    const t = this.tables(tenantId);
    if (!t || rowids.length === 0) return;
    const remove = this.#tables.deleter(t);
    for (const rowid of rowids) {
      remove(rowid);
      this.#bm25.removed(tenantId, rowid);
    }
  }

  /**
   * The chunks' document became public (`isPublic`) or private/shared: their rows move to the table that holds
   * them, so they count in the ranking statistics exactly while the document is public. Rows already there, or
   * not indexed (an older version, a deleted document), are left alone.
   */
  setPublic(tenantId: string, rowids: readonly number[], isPublic: boolean): void {
    const t = this.tables(tenantId);
    if (!t || rowids.length === 0) return;
    const [from, to] = isPublic ? [t.hidden, t.fts] : [t.fts, t.hidden];
    const move = this.#tables.mover(from, to);
    for (const rowid of rowids) {
      if (!move(rowid)) continue;
      this.#bm25.publicity(tenantId, rowid, isPublic);
    }
  }

  /** Empties the tenant's text index (a rebuild follows). */
  clear(tenantId: string): void {
    const t = this.tables(tenantId);
    if (!t) return;
    this.#tables.clear(t);
    this.#bm25.cleared(tenantId);
  }

  /** Forgets the tenant's in-memory index: its next word query builds it again from the tables. */
  forgetInMemory(tenantId: string): void {
    this.#bm25.cleared(tenantId);
  }

  /**
   * Indexes the tenant's live chunks again from the stored rows, inside the caller's transaction: after its rows
   * were replaced wholesale. The in-memory index is rebuilt on the next query.
   */
  reindex(tenantId: string): void {
    this.recreate(tenantId);
    this.reindexRange(tenantId, 0, Number.MAX_SAFE_INTEGER);
  }

  /**
   * Drops the tenant's text tables and creates them again, empty, under the same key: faster than emptying them
   * (FTS5 deletes row by row, reading each row's tokens back). Cached statements on them are prepared again by
   * SQLite once the tables exist again. The in-memory index is forgotten; `reindexRange` fills the tables.
   */
  recreate(tenantId: string): void {
    const existing = this.tables(tenantId);
    if (existing) {
      this.#tables.drop(existing);
      this.#tables.create(existing, weights);
    } else this.ensure(tenantId);
    this.#bm25.cleared(tenantId);
  }

  /**
   * Indexes the tenant's live chunks with a seq in (`after`, `through`], in three INSERT … SELECTs that walk that seq
   * range of `chunks` (no round trip per chunk, and no scan of the tenant's other chunks: a tenant index would read
   * them all to find those of the range), inside the caller's transaction; answers the chunks indexed.
   */
  reindexRange(tenantId: string, after: number, through: number): number {
    return this.#tables.fillRange(this.ensure(tenantId), tenantId, after, through);
  }

  /** Merges the index's segments (after a rebuild). */
  optimize(tenantId: string): void {
    const t = this.tables(tenantId);
    if (t) this.#tables.optimize(t);
  }

  /**
   * The statistics BM25 scores with (CorpusStats): the public chunks and their tokens, as FTS5 keeps them for
   * `fts_<k>` in its averages record (row 1 of `fts_<k>_data`: the row count, then each column's token total, as
   * SQLite varints). FTS5 writes that record when a transaction commits, so read it outside write transactions, as
   * searches are. The loaded in-memory index has the same numbers (`Bm25Index.stats`).
   */
  publicStats(tenantId: string): CorpusStats {
    const t = this.tables(tenantId);
    const block = t ? this.#tables.averages(t) : undefined;
    if (!block || block.length === 0) return { chunks: 0, tokens: 0 };
    const [chunks = 0, ...columns] = sqliteVarints(block);
    return { chunks, tokens: columns.reduce((sum, n) => sum + n, 0) };
  }

  /**
   * How many public chunks hold each of `phrases` (FTS5 phrase syntax, each quoted): the idf of a phrase in a
   * chunk that FTS5's `bm25()` cannot score (see fts-rank.ts).
   */
  publicChunksMatching(tenantId: string, phrases: readonly string[]): number[] {
    const t = this.tables(tenantId);
    if (!t) return phrases.map(() => 0);
    const count = this.#tables.publicMatches(t);
    return phrases.map((phrase) => count(phrase));
  }

  /**
   * How many public chunks hold each folded word's stem in `language` (or each term itself, with `terms`): the
   * order of fuzzy, wildcard and autocomplete candidates (most frequent first) and of a long query's terms, which
   * must not count chunks the caller may not read. From the in-memory index when it has loaded, else from FTS5's
   * public vocabulary; the numbers are the same.
   */
  publicFrequencies(
    tenantId: string,
    words: Iterable<string>,
    language: AnalysisLanguage | 'terms' = 'en',
  ): Map<string, number> {
    const out = new Map<string, number>();
    const t = this.tables(tenantId);
    if (!t) return out;
    const termOf = (word: string) => (language === 'terms' ? word : stem(word, language));
    const index = this.#bm25.ready(tenantId, t);
    if (index) {
      for (const word of words) out.set(word, index.publicChunks(termOf(word)));
      return out;
    }
    const lookup = this.#tables.publicVocabulary(t);
    const byStem = new Map<string, number>();
    for (const word of words) {
      if (out.has(word)) continue;
      const s = termOf(word);
      let n = byStem.get(s);
      if (n === undefined) {
        n = lookup(s) ?? 0;
        byStem.set(s, n);
      }
      out.set(word, n);
    }
    return out;
  }

  /**
   * The tenant's in-memory BM25 index when it is loaded; undefined while it loads in the background (started by
   * this call) or when the tenant has no text index. Rank through FTS5 meanwhile (fts-rank.ts): the scores are the
   * same.
   */
  ranked(tenantId: string): Bm25Index | undefined {
    const t = this.tables(tenantId);
    return t ? this.#bm25.ready(tenantId, t) : undefined;
  }

  /** The tenant's in-memory BM25 index once it has loaded; undefined when the tenant has no text index. */
  async loaded(tenantId: string): Promise<Bm25Index | undefined> {
    const t = this.tables(tenantId);
    return t ? this.#bm25.loaded(tenantId, t) : undefined;
  }

  /** Saves in the background the in-memory index whose checkpoint is due, if any (see Bm25Indexes.checkpoint). */
  checkpoint(): void {
    this.#bm25.checkpoint();
  }

  /** Starts reading back the checkpointed in-memory indexes (after a start), as many as their budget holds. */
  warmUp(): void {
    this.#bm25.warmUp((tenantId) => this.tables(tenantId));
  }

  /** In-memory indexes loading now (see Bm25Indexes.loading). */
  loading(): { how: 'replay' | 'rebuild'; done: number; total: number }[] {
    return this.#bm25.loading();
  }

  /** Since start: in-memory indexes read back from a checkpoint, built from the store, saved; unreadable files. */
  counters(): { checkpoint: number; rebuild: number; saves: number; unreadable: number } {
    return this.#bm25.counters();
  }

  commit(): void {
    this.#bm25.commit();
  }

  rollback(): void {
    // A rolled-back transaction may have created a tenant's tables (ensure); forget the keys so that the next
    // write creates them again instead of writing to tables that no longer exist.
    this.#keys.clear();
    this.#bm25.rollback();
  }

  /** Stops builds, then saves the in-memory indexes changed since their checkpoint (see Bm25Indexes.close). */
  close(): Promise<void> {
    return this.#bm25.close();
  }
}
