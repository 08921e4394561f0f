import { join } from 'node:path';
import type { Index } from 'usearch';
import type { Db } from '../storage/database.js';
import { indexBytesPerVector, modelSpace, type SpaceSettings } from '../collections/vector-space.js';
import { ExactVectors } from './exact-vectors.js';
import { IndexTail } from './index-tail.js';
import { RemovalLog } from './removal-log.js';
import { clearViews, type SearchView } from './search-views.js';
import { SpaceVectors } from './space-vectors.js';
import { asIndexed, newIndex } from './usearch-index.js';
import { inSlices } from '../in-slices.js';
import { vectorsPerSlice, type VectorIndexOptions } from './vector-index-options.js';

/** How an index came into memory: its current file, its last checkpoint plus the writes after it, or the store. */
export type OpenedHow = 'file' | 'replay' | 'rebuild';

/** An index in memory: its HNSW graph, the tail the graph has not taken yet, its float32 copies. */
export interface Entry {
  index: Index;
  readonly dims: number;
  /** The store's generation of the space as of the last write applied here. */
  generation: number;
  /** The generation the HNSW graph itself reflects: `generation` once the tail is empty (what a checkpoint records). */
  indexedGeneration: number;
  /** Vectors written but not in the graph yet, searched exactly; taken in the background (see IndexTail). */
  readonly tail: IndexTail;
  /** Float32 copies of the index's vectors (null: over the memory budget); usable once `exactReady`. */
  exact: ExactVectors | null;
  exactReady: boolean;
  /** Loaded from its file (with the writes after its checkpoint, after a crash), or built from the stored vectors. */
  readonly source: 'file' | 'store';
  /** The highest vector seq the HNSW graph reflects (see IndexMeta); the tail holds the live ones after it. */
  through: number;
  /** Vectors added or removed since the file was last saved (a built or replayed index counts as changed). */
  dirty: number;
  /** When the file was last saved or loaded (clock milliseconds). */
  savedAt: number;
  /** Use order, for eviction: higher is more recent. */
  used: number;
  /** Estimated index memory per vector (storage kind and m are fixed when a vector is declared). */
  readonly perVector: number;
  /** Milliseconds the last slice of background indexing took per vector (sizes the next slice); unknown at first. */
  insertMs?: number;
}

/** An index being built from the store in slices (see VectorIndexes.ready()). */
export interface Build {
  readonly index: Index;
  exact: ExactVectors | null;
  readonly dims: number;
  /** Chunks up to this seq are in the index. */
  through: number;
  readonly how: Exclude<OpenedHow, 'file'>;
  /** Vectors added so far, of `total` (counted when the build started). */
  added: number;
  readonly total: number;
  readonly done: Promise<void>;
  finish(): void;
  /** Settles the waiters: the index is ready (built by this build or by a rebuild that replaced it), or not. */
  resolve(): void;
  fail(error: unknown): void;
}

/** Memory the indexes hold, in bytes, and their budgets. */
export interface VectorMemory {
  readonly indexBytes: number;
  readonly indexBudget: number;
  readonly copiesBytes: number;
  readonly copiesBudget: number;
}

/**
 * The state the vector indexes share: the indexes in memory and being built, by space, with what they need to
 * reach the store, their files and their budgets. The modules beside it (builds, checkpoints, tail indexing,
 * search, statistics) work on it; VectorIndexes is the one door to them.
 */
export class IndexRegistry {
  readonly db: Db;
  readonly options: VectorIndexOptions;
  readonly entries = new Map<string, Entry>();
  readonly building = new Map<string, Build>();
  /** Saved files that are exactly a graph in memory, by space, for the search workers (see search-views.ts). */
  readonly views = new Map<string, SearchView>();
  readonly log: RemovalLog;
  readonly store: SpaceVectors;
  readonly opened: Record<OpenedHow, number> = { file: 0, replay: 0, rebuild: 0 };
  /** Index files found unreadable since start (they differ from what was saved): replayed or rebuilt instead. */
  unreadable = 0;
  checkpoints = 0;
  evictions = 0;
  uses = 0;
  closed = false;
  /** Imports in progress: background indexing waits for them to finish (see VectorIndexes.deferIndexing()). */
  deferred = 0;
  indexing = false;

  constructor(db: Db, options: VectorIndexOptions) {
    this.db = db;
    this.options = options;
    this.log = new RemovalLog(db);
    this.store = new SpaceVectors(db, (tenantId, space) => this.settings(tenantId, space));
    clearViews(options.dir);
  }

  /** The map key of a space's index. */
  key(tenantId: string, space: string): string {
    return JSON.stringify([tenantId, space]);
  }

  /** The tenant and space of a map key. */
  spaceOf(key: string): [tenantId: string, space: string] {
    return JSON.parse(key) as [string, string];
  }

  /** The settings of a space: a model's, or a collection vector's. */
  settings(tenantId: string, space: string): SpaceSettings {
    return this.options.spaceSettings?.(tenantId, space) ?? modelSpace(space);
  }

  /** The index file and its metadata of a space, or null when indexes are kept in memory only. */
  files(tenantId: string, space: string): { index: string; meta: string } | null {
    if (!this.options.dir) return null;
    const base = join(this.options.dir, encodeURIComponent(tenantId), encodeURIComponent(space));
    return { index: `${base}.usearch`, meta: `${base}.meta.json` };
  }

  now(): number {
    return this.options.clock?.now() ?? 0;
  }

  touch(entry: Entry): void {
    this.uses += 1;
    entry.used = this.uses;
  }

  newIndex(tenantId: string, space: string, dims: number): Index {
    return newIndex(this.options.spaceSettings?.(tenantId, space), this.options, dims);
  }

  /** A new entry for an index of a space, with an empty tail, saved or loaded now, not used yet. */
  entry(
    tenantId: string,
    space: string,
    fields: Pick<
      Entry,
      'index' | 'dims' | 'generation' | 'indexedGeneration' | 'exact' | 'exactReady' | 'through' | 'dirty' | 'source'
    >,
  ): Entry {
    return {
      ...fields,
      tail: new IndexTail(),
      savedAt: this.now(),
      used: 0,
      perVector: this.perVector(tenantId, space, fields.dims),
    };
  }

  newExact(dims: number): ExactVectors | null {
    return this.options.exactVectorBytes > 0 ? new ExactVectors(dims) : null;
  }

  perVector(tenantId: string, space: string, dims: number): number {
    const settings = this.settings(tenantId, space);
    return indexBytesPerVector(dims, settings.storage, settings.hnsw.m);
  }

  /** The graph's estimated memory, its tail counted in (the graph takes it soon). */
  indexBytes(entry: Entry): number {
    return Math.round((entry.index.size() + entry.tail.size) * entry.perVector);
  }

  /** Memory held by the indexes (estimated from their sizes) and by their float32 copies, with the budgets. */
  memory(): VectorMemory {
    let indexBytes = 0;
    let copiesBytes = 0;
    for (const entry of this.entries.values()) {
      indexBytes += this.indexBytes(entry);
      copiesBytes += entry.exact?.bytes ?? 0;
    }
    for (const build of this.building.values()) copiesBytes += build.exact?.bytes ?? 0;
    return {
      indexBytes,
      indexBudget: this.options.indexMemoryBytes ?? Infinity,
      copiesBytes,
      copiesBudget: this.options.exactVectorBytes,
    };
  }

  /** Drops float32 copies while all of them together pass the memory budget (largest first). */
  enforceCopiesBudget(extra?: Entry): void {
    const holders: (Entry | Build)[] = [...this.entries.values(), ...this.building.values()];
    if (extra && !holders.includes(extra)) holders.push(extra);
    let total = holders.reduce((sum, h) => sum + (h.exact?.bytes ?? 0), 0);
    while (total > this.options.exactVectorBytes) {
      const largest = holders.reduce((a, b) => ((b.exact?.bytes ?? 0) > (a.exact?.bytes ?? 0) ? b : a));
      total -= largest.exact?.bytes ?? 0;
      largest.exact = null;
      if ('exactReady' in largest) largest.exactReady = false;
    }
  }

  /** Fills the float32 copies of an index loaded from its file, in the background; searches rescore from the store meanwhile. */
  fillCopies(tenantId: string, space: string, entry: Entry): void {
    const page = this.store.page(tenantId, space);
    const settings = this.settings(tenantId, space);
    let through = 0;
    inSlices(() => {
      const exact = entry.exact;
      if (this.closed || !exact || this.entries.get(this.key(tenantId, space)) !== entry) return true;
      const rows = page(through);
      for (const row of rows) exact.set(row.seq, row.doc_seq, asIndexed(settings, row.vector, entry.dims));
      this.enforceCopiesBudget();
      if (rows.length === vectorsPerSlice) {
        through = rows[rows.length - 1]!.seq;
        return false;
      }
      entry.exactReady = entry.exact !== null;
      return true;
    });
  }
}
