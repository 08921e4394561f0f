import type { Db } from '../storage/database.js';
import type { TransactionListener } from '../storage/transaction.js';
import { inSlices } from '../in-slices.js';
import { Bm25Index } from './bm25-index.js';
import type { Bm25Weights } from './bm25-score.js';
import type { FtsTables } from './fts-tables.js';

type JournalEntry =
  | {
      readonly kind: 'add';
      readonly tenantId: string;
      readonly rowid: number;
      readonly docSeq: number;
      readonly title: string;
      readonly content: string;
      readonly isPublic: boolean;
    }
  | { readonly kind: 'remove'; readonly tenantId: string; readonly rowid: number }
  | { readonly kind: 'publicity'; readonly tenantId: string; readonly rowid: number; readonly isPublic: boolean };

/** The FTS5 tables a tenant's index is built from: public chunks, and the others. */
export interface RankTables {
  readonly fts: string;
  readonly hidden: string;
}

interface Build {
  readonly index: Bm25Index;
  /** Rows up to this FTS5 rowid (chunk seq) are in the index. */
  through: number;
}

/**
 * Text indexed per slice of a build, in characters (~10–30 ms here), so queries keep flowing while an index
 * loads. Slices were 2,000 rows: with 1 KB chunks each held the event loop for 1–2 s, and a query arriving
 * during a tenant's first build waited behind them.
 */
const charactersPerSlice = 100_000;
/** Rows read per slice: as many as the last rows' average size fits in the budget, within these bounds. */
const minRowsPerSlice = 16;
const maxRowsPerSlice = 2000;

/**
 * The in-memory BM25 indexes (Bm25Index), one per tenant, derived from the tenants' FTS5 tables.
 *
 * - A tenant's index is built on its first word query, in the background: slices of rows in chunk-seq order from
 *   its two FTS5 tables (public chunks, and the others), one per turn of the event loop. Until it is ready,
 *   `ready()` answers undefined and the caller ranks through FTS5 (fts-rank.ts), whose scores are the same.
 * - Writes are journalled inside their transaction and applied when it commits. During a build, a new chunk beyond
 *   the rows read so far is left to the build (chunk seqs only grow), and removals and visibility changes of rows
 *   already read apply at once (the build reads later rows from the table they are in by then).
 * - A rollback, or a write outside `transaction()`, drops the tenants concerned: they are rebuilt on their next
 *   query, never trusted half-updated.
 */
export class Bm25Indexes implements TransactionListener {
  readonly #db: Db;
  readonly #tables: FtsTables;
  readonly #weights: Bm25Weights;
  readonly #ready = new Map<string, Bm25Index>();
  readonly #building = new Map<string, Build>();
  #journal: JournalEntry[] = [];
  #closed = false;
  /** Memory for the ready indexes; beyond it the least recently used leave memory (see #evict). */
  readonly #budget: number;
  #evictions = 0;

  /** `db`: the connection the FTS5 tables' writes go through (its transactions); `tables`: where a build reads. */
  constructor(db: Db, tables: FtsTables, weights: Bm25Weights, budgetBytes = Infinity) {
    this.#db = db;
    this.#tables = tables;
    this.#weights = weights;
    this.#budget = budgetBytes;
  }

  /** Memory the indexes hold (estimated), their budget, and how many were evicted since start. */
  memory(): { bytes: number; budget: number; evictions: number; tenants: number } {
    let bytes = 0;
    for (const index of this.#ready.values()) bytes += index.bytes;
    for (const build of this.#building.values()) bytes += build.index.bytes;
    return { bytes, budget: this.#budget, evictions: this.#evictions, tenants: this.#ready.size };
  }

  /**
   * Forgets the least recently queried indexes while the ready ones pass the budget (`keep`, just built, stays).
   * Nothing is lost: FTS5 holds the text, ranks an evicted tenant's queries with the same scores, and its next
   * query rebuilds its index in the background.
   */
  #evict(keep: string): void {
    if (this.#budget === Infinity) return;
    let total = 0;
    for (const index of this.#ready.values()) total += index.bytes;
    // #ready is kept in use order (a query moves its tenant to the end): the first is the least recently used.
    for (const [tenantId, index] of this.#ready) {
      if (total <= this.#budget) return;
      if (tenantId === keep) continue;
      total -= index.bytes;
      this.#ready.delete(tenantId);
      this.#evictions += 1;
    }
  }

  /** Whether writes to the tenant must be journalled. */
  #tracked(tenantId: string): boolean {
    return this.#ready.has(tenantId) || this.#building.has(tenantId);
  }

  added(tenantId: string, rowid: number, docSeq: number, title: string, content: string, isPublic: boolean): void {
    if (this.#tracked(tenantId)) this.#journal.push({ kind: 'add', tenantId, rowid, docSeq, title, content, isPublic });
  }

  /** The chunk's document became public, or stopped being public. */
  publicity(tenantId: string, rowid: number, isPublic: boolean): void {
    if (this.#tracked(tenantId)) this.#journal.push({ kind: 'publicity', tenantId, rowid, isPublic });
  }

  removed(tenantId: string, rowid: number): void {
    if (this.#tracked(tenantId)) this.#journal.push({ kind: 'remove', tenantId, rowid });
  }

  /** The tenant's rows were all deleted (a rebuild follows in the same transaction): build again later. */
  cleared(tenantId: string): void {
    this.#drop(tenantId);
  }

  /**
   * The tenant's index when it is ready; otherwise undefined, and its build (from the FTS5 tables) starts in the
   * background if it had not.
   */
  ready(tenantId: string, tables: RankTables): Bm25Index | undefined {
    if (this.#journal.length > 0 && !this.#db.inTransaction) this.rollback(); // a write outside transaction()
    const index = this.#ready.get(tenantId);
    if (index) {
      this.#ready.delete(tenantId); // to the end: most recently used
      this.#ready.set(tenantId, index);
      return index;
    }
    if (this.#building.has(tenantId) || this.#closed) return index;
    const build: Build = { index: new Bm25Index(this.#weights), through: 0 };
    this.#building.set(tenantId, build);
    // Pages read the FTS5 tables' stored rows by primary key (FtsTables.storedRows): paging the FTS5 tables
    // themselves by rowid made a build of a large tenant take hours.
    const publicPage = this.#tables.storedRows(tables.fts);
    const hiddenPage = this.#tables.storedRows(tables.hidden);
    let rowsPerSlice = minRowsPerSlice;
    inSlices(() => {
      if (this.#building.get(tenantId) !== build || this.#closed || !this.#db.open) return true; // dropped meanwhile
      // The next rows in chunk-seq order, from both tables: a page of each, merged.
      const rows = [
        ...publicPage(build.through, rowsPerSlice).map((row) => ({ row, isPublic: true })),
        ...hiddenPage(build.through, rowsPerSlice).map((row) => ({ row, isPublic: false })),
      ]
        .sort((x, y) => x.row.seq - y.row.seq)
        .slice(0, rowsPerSlice);
      let characters = 0;
      let added = 0;
      for (const { row, isPublic } of rows) {
        build.index.add(row.seq, row.doc, row.title, row.content, isPublic);
        build.through = row.seq;
        characters += row.title.length + row.content.length;
        added += 1;
        // Rows larger than the last ones: the rest of the page waits for the next slice.
        if (characters >= charactersPerSlice) break;
      }
      const more = rows.length === rowsPerSlice || added < rows.length;
      const average = added > 0 ? Math.max(1, characters / added) : charactersPerSlice;
      rowsPerSlice = Math.min(maxRowsPerSlice, Math.max(minRowsPerSlice, Math.floor(charactersPerSlice / average)));
      if (more) return false;
      this.#building.delete(tenantId);
      this.#ready.set(tenantId, build.index);
      this.#evict(tenantId);
      return true;
    });
    return undefined;
  }

  commit(): void {
    const journal = this.#journal;
    this.#journal = [];
    for (const entry of journal) {
      const ready = this.#ready.get(entry.tenantId);
      const build = this.#building.get(entry.tenantId);
      const index = ready ?? build?.index;
      if (!index) continue;
      if (entry.kind === 'remove') index.remove(entry.rowid);
      else if (entry.kind === 'publicity') index.setPublic(entry.rowid, entry.isPublic);
      else if (ready || entry.rowid <= build!.through) {
        index.add(entry.rowid, entry.docSeq, entry.title, entry.content, entry.isPublic);
      }
    }
  }

  rollback(): void {
    for (const entry of this.#journal) this.#drop(entry.tenantId);
    this.#journal = [];
  }

  /**
   * Resolves with the tenant's index once it has loaded, starting its build if need be; undefined once the store
   * is closing.
   */
  async loaded(tenantId: string, tables: RankTables): Promise<Bm25Index | undefined> {
    for (;;) {
      const index = this.ready(tenantId, tables);
      if (index || this.#closed) return index;
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  /** Stops builds in progress (the store is closing). */
  close(): void {
    this.#closed = true;
    this.#building.clear();
  }

  #drop(tenantId: string): void {
    this.#ready.delete(tenantId);
    this.#building.delete(tenantId);
  }
}
