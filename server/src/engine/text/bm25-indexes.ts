import type { Db } from '../storage/database.js';
import type { TransactionListener } from '../storage/transaction.js';
import { inSlices } from '../in-slices.js';
import { Bm25Checkpoints } from './bm25-checkpoints.js';
import { Bm25Index } from './bm25-index.js';
import type { Bm25Saved } from './bm25-state.js';
import type { Bm25Weights } from './bm25-score.js';
import type { FtsTables } from './fts-tables.js';
import type { TextCheckpointRow } from './text-checkpoint-rows.js';

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
  /**
   * Read back from a checkpoint: the stored rows up to `through` are compared with the index in seq ranges, `after`
   * being where the next range starts (undefined: nothing to compare, or compared).
   */
  check: { after: number; readonly through: number } | undefined;
  readonly how: 'replay' | 'rebuild';
  /** Stored rows read or compared so far, of `total` when the build began. */
  done: number;
  readonly total: number;
  /** Chunks added, removed or moved since the checkpoint it started from. */
  changes: number;
}

/** A ready index's changes since it was last saved, and when that was. */
interface SaveState {
  changes: number;
  savedAt: number;
  /** When its last save failed (tried again an interval later, other tenants' saves going first meanwhile). */
  failedAt?: number;
}

export interface Bm25IndexesOptions {
  /** Memory for the ready indexes (least recently used evicted beyond it), in bytes; default no limit. */
  readonly budgetBytes?: number;
  /** Where checkpoint files go (see Bm25Checkpoints); null or absent: none, indexes are built from FTS5. */
  readonly dir?: string | null;
  /** When an index is saved (see checkpoint): `writes` changes, or any change after `intervalMs` × 5. */
  readonly checkpoint?: { readonly writes: number; readonly intervalMs: number };
  /** The engine's clock, in ms. */
  readonly now?: () => number;
}

/** Stored ids of each table a check compares with the index per slice (about 10 ms of map lookups here). */
const idsPerCheckSlice = 50_000;
/**
 * A text index is saved less often than a vector index with the same settings: its file is about as large as the
 * text, and writing it takes seconds at a million chunks. Due after `writes` changes or a quarter of the index,
 * whichever is more — so an index growing by a bulk import is written about five times its final size in all — or
 * after any change once five times the interval has passed.
 */
const textIntervalFactor = 5;
const defaultTextCheckpoint = { writes: 10_000, intervalMs: 60_000 };

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
 * - With a folder for them, indexes are checkpointed in the background (`checkpoint`, Bm25Checkpoints) and on close,
 *   and a tenant's index is read back from its checkpoint rather than built: compared with the stored rows up to the
 *   file's last chunk seq (rows gone are removed, rows moved between public and hidden recounted), then the rows
 *   after it are added as a build adds them. At start, `warmUp` reads back the saved ones.
 */
export class Bm25Indexes implements TransactionListener {
  readonly #db: Db;
  readonly #tables: FtsTables;
  readonly #weights: Bm25Weights;
  readonly #ready = new Map<string, Bm25Index>();
  readonly #building = new Map<string, Build>();
  /** Tenants whose checkpoint file is being read, each with the token of that read. */
  readonly #loading = new Map<string, symbol>();
  #journal: JournalEntry[] = [];
  #closed = false;
  /** Memory for the ready indexes; beyond it the least recently used leave memory (see #evict). */
  readonly #budget: number;
  #evictions = 0;
  readonly #checkpoints: Bm25Checkpoints | undefined;
  readonly #checkpointPolicy: { readonly writes: number; readonly intervalMs: number };
  readonly #now: () => number;
  /** Per ready tenant: changes since its last save. */
  readonly #saves = new Map<string, SaveState>();
  /** Per tenant, bumped when its rows are rewritten (`cleared`): a save begun before is not recorded. */
  readonly #epochs = new Map<string, number>();
  #saving: Promise<void> | undefined;
  #saveError: unknown;
  readonly #counters = { checkpoint: 0, rebuild: 0, saves: 0, unreadable: 0 };

  /** `db`: the connection the FTS5 tables' writes go through (its transactions); `tables`: where a build reads. */
  constructor(db: Db, tables: FtsTables, weights: Bm25Weights, options: Bm25IndexesOptions = {}) {
    this.#db = db;
    this.#tables = tables;
    this.#weights = weights;
    this.#budget = options.budgetBytes ?? Infinity;
    this.#checkpoints = options.dir ? new Bm25Checkpoints(db, options.dir) : undefined;
    this.#checkpointPolicy = options.checkpoint ?? defaultTextCheckpoint;
    this.#now = options.now ?? (() => 0);
  }

  /**
   * Since start: indexes read back from a checkpoint, built from the store, saved, and checkpoints found unreadable
   * (built from the store instead).
   */
  counters(): { checkpoint: number; rebuild: number; saves: number; unreadable: number } {
    return { ...this.#counters };
  }

  /** Indexes loading now: from a checkpoint (`replay`) or from the store (`rebuild`), stored rows done of total. */
  loading(): { how: 'replay' | 'rebuild'; done: number; total: number }[] {
    return [
      ...[...this.#loading.keys()].map(() => ({ how: 'replay' as const, done: 0, total: 0 })),
      ...[...this.#building.values()].map((b) => ({ how: b.how, done: Math.min(b.done, b.total), total: b.total })),
    ];
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
      this.#saves.delete(tenantId); // its checkpoint stays: read back and caught up when it is next queried
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

  /**
   * The tenant's rows were all deleted, or are replaced (a rebuild or a restore follows in the same transaction):
   * build again later, and forget its checkpoint (the rows may come back with seqs it holds).
   */
  cleared(tenantId: string): void {
    this.#drop(tenantId);
    this.#epochs.set(tenantId, (this.#epochs.get(tenantId) ?? 0) + 1);
    this.#checkpoints?.forget(tenantId);
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
    if (this.#building.has(tenantId) || this.#loading.has(tenantId) || this.#closed) return index;
    const row = this.#checkpoints?.row(tenantId);
    if (row) this.#load(tenantId, row, tables);
    else this.#build(tenantId, tables, new Bm25Index(this.#weights), undefined);
    return undefined;
  }

  /**
   * Reads the tenant's checkpoint file in the background, then builds from it (#build compares it with the stored
   * rows and adds the rows after it). Writes meanwhile are not journalled: that comparison finds them. A file that
   * cannot be read (missing, cut short, another store's) means a build from the store.
   */
  #load(tenantId: string, row: TextCheckpointRow, tables: RankTables): void {
    const token = Symbol(tenantId);
    this.#loading.set(tenantId, token);
    const current = () => this.#loading.get(tenantId) === token && !this.#closed && this.#db.open;
    const settle = (saved: Bm25Saved | undefined) => {
      if (!current()) return; // dropped meanwhile, or closing
      if (!saved) {
        this.#loading.delete(tenantId);
        this.#counters.unreadable += 1;
        this.#build(tenantId, tables, new Bm25Index(this.#weights), undefined);
        return;
      }
      // The index is made from the file's arrays a step per turn of the event loop (a million terms' maps take
      // over a second), then built on.
      const steps = Bm25Index.restoring(this.#weights, saved);
      inSlices(() => {
        if (!current()) return true;
        const step = steps.next();
        if (!step.done) return false;
        this.#loading.delete(tenantId);
        this.#build(tenantId, tables, step.value, saved.through);
        return true;
      });
    };
    this.#checkpoints!.read(tenantId, row, this.#weights).then(settle, () => settle(undefined));
  }

  /**
   * Builds the tenant's index in the background, one slice per turn of the event loop: from `index`, read back from
   * a checkpoint holding every chunk up to `checkedThrough` — first compared with the stored rows up to there —
   * or empty (`checkedThrough` undefined); then the stored rows after that, in chunk-seq order.
   */
  #build(tenantId: string, tables: RankTables, index: Bm25Index, checkedThrough: number | undefined): void {
    const total = this.#tables.storedCount(tables.fts) + this.#tables.storedCount(tables.hidden);
    const build: Build = {
      index,
      through: checkedThrough ?? 0,
      check: checkedThrough === undefined ? undefined : { after: 0, through: checkedThrough },
      how: checkedThrough === undefined ? 'rebuild' : 'replay',
      done: 0,
      total,
      changes: 0,
    };
    if (build.check) index.beginCheck();
    this.#building.set(tenantId, build);
    // Pages read the FTS5 tables' stored rows by primary key (FtsTables.storedRows): paging the FTS5 tables
    // themselves by rowid made a build of a large tenant take hours.
    const publicRows = this.#tables.storedRows(tables.fts);
    const hiddenRows = this.#tables.storedRows(tables.hidden);
    const publicIds = this.#tables.storedIds(tables.fts);
    const hiddenIds = this.#tables.storedIds(tables.hidden);
    let rowsPerSlice = minRowsPerSlice;
    inSlices(() => {
      if (this.#building.get(tenantId) !== build || this.#closed || !this.#db.open) return true; // dropped meanwhile
      const check = build.check;
      if (check) {
        // One seq range of both tables in one slice: a chunk moved between them by a write between slices is seen
        // in exactly one of them either way. The range ends where the first full page of either table ends (chunk
        // seqs are shared by every tenant, so a range of seqs may hold any number of this tenant's).
        const publicPage = publicIds(check.after, check.through, idsPerCheckSlice);
        const hiddenPage = hiddenIds(check.after, check.through, idsPerCheckSlice);
        let to = check.through;
        for (const page of [publicPage, hiddenPage])
          if (page.length === idsPerCheckSlice) to = Math.min(to, page[page.length - 1]!);
        const stored = [
          ...publicPage.filter((seq) => seq <= to).map((seq) => ({ seq, isPublic: true })),
          ...hiddenPage.filter((seq) => seq <= to).map((seq) => ({ seq, isPublic: false })),
        ];
        for (const { seq, isPublic } of stored) {
          const found = index.confirm(seq, isPublic);
          if (found === 'moved') build.changes += 1;
          if (found !== 'missing') continue;
          // Not in the checkpoint (chunk seqs only grow, so only a file older than a rewrite it missed): added now.
          const row = (isPublic ? publicRows : hiddenRows)(seq - 1, 1)[0];
          if (row?.seq === seq) index.add(row.seq, row.doc, row.title, row.content, isPublic);
          build.changes += 1;
        }
        build.done += stored.length;
        check.after = to;
        if (to >= check.through) {
          build.changes += index.removeUnconfirmed();
          build.check = undefined;
        }
        return false;
      }
      // The next rows in chunk-seq order, from both tables: a page of each, merged.
      const rows = [
        ...publicRows(build.through, rowsPerSlice).map((row) => ({ row, isPublic: true })),
        ...hiddenRows(build.through, rowsPerSlice).map((row) => ({ row, isPublic: false })),
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
      build.done += added;
      build.changes += added;
      const more = rows.length === rowsPerSlice || added < rows.length;
      const average = added > 0 ? Math.max(1, characters / added) : charactersPerSlice;
      rowsPerSlice = Math.min(maxRowsPerSlice, Math.max(minRowsPerSlice, Math.floor(charactersPerSlice / average)));
      if (more) return false;
      this.#building.delete(tenantId);
      this.#ready.set(tenantId, build.index);
      this.#counters[build.how === 'replay' ? 'checkpoint' : 'rebuild'] += 1;
      // A build from the store is saved at the next checkpoint tick; one from a checkpoint when its changes are due.
      this.#saves.set(
        tenantId,
        build.how === 'replay'
          ? { changes: build.changes, savedAt: this.#now() }
          : { changes: build.changes + 1, savedAt: -Infinity },
      );
      this.#evict(tenantId);
      return true;
    });
  }

  /**
   * Starts saving the index whose checkpoint is due, if any, unless a save is under way: its `writes` changes (or a
   * quarter of its chunks, whichever is more) since its last save, or any change after five times the interval. One
   * save at a time; it runs in the background. Throws the error of a save that failed since the last call.
   */
  checkpoint(): void {
    const failed = this.#saveError;
    this.#saveError = undefined;
    if (failed !== undefined) throw failed;
    if (!this.#checkpoints || this.#closed || this.#saving || !this.#db.open) return;
    const { writes, intervalMs } = this.#checkpointPolicy;
    const now = this.#now();
    for (const [tenantId, index] of this.#ready) {
      const state = this.#saves.get(tenantId);
      if (!state || state.changes === 0) continue;
      if (state.failedAt !== undefined && now - state.failedAt < intervalMs) continue;
      if (state.changes < Math.max(writes, index.size / 4) && now - state.savedAt < intervalMs * textIntervalFactor)
        continue;
      this.#save(tenantId, index, state);
      return;
    }
  }

  #save(tenantId: string, index: Bm25Index, state: SaveState): Promise<void> {
    const epoch = this.#epochs.get(tenantId) ?? 0;
    const changes = state.changes;
    const stillValid = () => (this.#epochs.get(tenantId) ?? 0) === epoch && this.#db.open;
    this.#saving = this.#checkpoints!.save(tenantId, index, stillValid, this.#now)
      .then(
        (bytes) => {
          state.savedAt = this.#now();
          delete state.failedAt;
          if (bytes === 0) return;
          state.changes -= changes;
          this.#counters.saves += 1;
        },
        (error: unknown) => {
          state.failedAt = this.#now(); // tried again after the interval, not at every tick
          this.#saveError = error;
        },
      )
      .finally(() => {
        this.#saving = undefined;
      });
    return this.#saving;
  }

  /**
   * Starts loading the indexes of tenants with a checkpoint (`tablesOf` names their tables), most recently saved
   * first, as many as the memory budget holds: after a restart, text queries find them ready.
   */
  warmUp(tablesOf: (tenantId: string) => RankTables | undefined): void {
    if (!this.#checkpoints) return;
    let bytes = 0;
    for (const saved of this.#checkpoints.saved()) {
      const tables = tablesOf(saved.tenantId);
      if (!tables || bytes + saved.bytes > this.#budget) continue;
      bytes += saved.bytes;
      this.ready(saved.tenantId, tables);
    }
  }

  commit(): void {
    const journal = this.#journal;
    this.#journal = [];
    for (const entry of journal) {
      const ready = this.#ready.get(entry.tenantId);
      const build = this.#building.get(entry.tenantId);
      const index = ready ?? build?.index;
      if (!index) continue;
      const state = ready ? this.#saves.get(entry.tenantId) : build;
      if (state) state.changes += 1;
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

  /**
   * Stops builds in progress (the store is closing), then saves the ready indexes changed since their last save, one
   * after the other, so the next start reads them back whole; resolves once they are written.
   */
  async close(): Promise<void> {
    this.#closed = true;
    this.#building.clear();
    this.#loading.clear();
    await this.#saving;
    if (!this.#checkpoints) return;
    for (const [tenantId, index] of this.#ready) {
      const state = this.#saves.get(tenantId);
      if (!state || state.changes === 0 || !this.#db.open) continue;
      await this.#save(tenantId, index, state);
    }
    // A save that failed on the way out leaves the file before it, or none: the next start catches up from that
    // file or builds from the store, as after a crash. Nothing acknowledged is lost either way.
    this.#saveError = undefined;
  }

  #drop(tenantId: string): void {
    this.#ready.delete(tenantId);
    this.#building.delete(tenantId);
    this.#loading.delete(tenantId);
    this.#saves.delete(tenantId);
  }
}
