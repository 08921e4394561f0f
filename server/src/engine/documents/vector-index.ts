import { existsSync, mkdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Statement } from 'better-sqlite3';
import { Index, MetricKind, ScalarKind } from 'usearch';
import { createError } from '@godb/contract';
import type { Clock } from '../clock.js';
import type { Db } from '../storage/database.js';
import { inSlices } from '../in-slices.js';
import { dotProduct, ExactVectors, squaredDistance } from './exact-vectors.js';
import { IndexTail, Nearest } from './index-tail.js';
import { readMeta, RemovalLog, removeTemporary, writeDurably, writeMeta, type IndexMeta } from './index-files.js';
import { indexBytesPerVector, modelSpace, parseSpaceKey, type SpaceSettings } from '../collections/vector-space.js';

export interface VectorIndexOptions {
  /** Folder for index files, or null to keep indexes in memory only (rebuilt from the store on start). */
  readonly dir: string | null;
  readonly connectivity: number;
  readonly expansionAdd: number;
  readonly expansionSearch: number;
  /**
   * Memory for float32 copies of the indexed vectors (exact rescoring without reading the store), in bytes, over
   * all indexes. An index whose copies would pass it rescores from the store instead.
   */
  readonly exactVectorBytes: number;
  /**
   * The settings of a space (see collections/vector-space.ts): a model name, or a client space's key. Model spaces
   * by default; HNSW parameters given here replace connectivity and the expansions.
   */
  readonly spaceSettings?: (tenantId: string, space: string) => SpaceSettings;
  /**
   * Memory for the HNSW indexes themselves (estimated from their sizes), over all of them; beyond it the least
   * recently used indexes are saved and leave memory, to be loaded from their files on next use. Infinity: none.
   * Only with a folder (an index kept only in memory cannot leave it).
   */
  readonly indexMemoryBytes?: number;
  /**
   * Checkpoints (see checkpoint()): an index is saved once it holds `writes` changed vectors since its last save,
   * or any change `intervalMs` after its last save. Time comes from `clock`.
   */
  readonly checkpoint?: { readonly writes: number; readonly intervalMs: number };
  readonly clock?: Clock;
  /**
   * How long a vector query waits for an index that is loading or catching up before answering 503
   * INDEX_LOADING: `wait()` resolves when the wait is over. Unset: queries wait until the index is ready.
   */
  readonly wait?: () => Promise<void>;
  /**
   * Vectors an index may lag behind its space (stored, acknowledged, searched exactly, not yet in the HNSW graph)
   * before a write waits for the index to take the excess. Default 1,000,000 per index.
   */
  readonly maxIndexLag?: number;
}

export const defaultVectorIndexOptions: Omit<VectorIndexOptions, 'dir'> = {
  connectivity: 16,
  expansionAdd: 200,
  expansionSearch: 100,
  exactVectorBytes: 1024 * 1024 * 1024,
};

const defaultCheckpoint = { writes: 10_000, intervalMs: 60_000 };

interface Entry {
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
}

/** How an index came into memory: its current file, its last checkpoint plus the writes after it, or the store. */
export type OpenedHow = 'file' | 'replay' | 'rebuild';

/** An index loading or catching up, as /readyz shows it. */
export interface LoadingIndex {
  /** A model's name, or `collection` for a collection's vector (tenant data is not shown). */
  readonly space: string;
  readonly how: Exclude<OpenedHow, 'file'>;
  /** Vectors read from the store so far, of `total` to read. */
  readonly done: number;
  readonly total: number;
}

/** Memory the indexes hold, in bytes, and their budgets. */
export interface VectorMemory {
  readonly indexBytes: number;
  readonly indexBudget: number;
  readonly copiesBytes: number;
  readonly copiesBudget: number;
}

/** Counters since start, for /readyz and /metrics. */
export interface VectorCounters {
  readonly opened: Readonly<Record<OpenedHow, number>>;
  readonly checkpoints: number;
  readonly evictions: number;
}

/** A chunk as the index and its exact copies hold it. */
export interface IndexedChunk {
  readonly key: number;
  readonly doc: number;
  readonly vector: Float32Array;
}

/** An index being built from the store in slices (see ready()). */
interface Build {
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

/** Vectors added per slice of a background build: tens of milliseconds, so other requests keep being served. */
const vectorsPerSlice = 512;
/** Vectors moved from a tail into its index per slice of background indexing (usearch's threads share the batch). */
const tailPerSlice = 256;
const defaultMaxIndexLag = 1_000_000;
/**
 * A tail indexed at once before a save (about half a second of HNSW insertion at 512 dimensions); also what one
 * saveAll() or checkpoint() indexes at most over all indexes, so a snapshot or a shutdown never holds the thread
 * for the whole lag of every index (up to `maxIndexLag` each).
 */
const shortTail = 4096;

const alive = 'd.deleted_at IS NULL AND d.superseded = 0';

type PageRow = { seq: number; doc_seq: number; vector: Buffer };

const metricOf = (settings: SpaceSettings): MetricKind =>
  settings.storage === 'b1'
    ? MetricKind.Hamming
    : settings.distance === 'euclidean'
      ? MetricKind.L2sq
      : settings.distance === 'dot'
        ? MetricKind.IP
        : MetricKind.Cos;
const scalarOf: Record<SpaceSettings['storage'], ScalarKind> = {
  f32: ScalarKind.F32,
  f16: ScalarKind.F16,
  i8: ScalarKind.I8,
  b1: ScalarKind.B1,
};

/** A stored vector as the index and its copies hold it: unit length for cosine (so a dot product is the cosine). */
function asIndexed(settings: SpaceSettings, blob: Buffer | Float32Array, dims: number): Float32Array {
  const vector = blob instanceof Float32Array ? blob : new Float32Array(blob.buffer, blob.byteOffset, dims);
  if (settings.distance !== 'cosine' || settings.source.kind === 'chunks') return vector; // model vectors are unit
  let sum = 0;
  for (let i = 0; i < vector.length; i += 1) sum += vector[i]! * vector[i]!;
  const norm = Math.sqrt(sum);
  if (!(norm > 0)) return vector;
  const unit = new Float32Array(vector.length);
  for (let i = 0; i < vector.length; i += 1) unit[i] = vector[i]! / norm;
  return unit;
}

/** What the collection info shows of one index. */
export interface IndexStats {
  readonly state: 'not loaded' | 'loading' | 'ready';
  /** How a ready index came to memory. */
  readonly source?: 'file' | 'store';
  /** Vectors in the index: in its HNSW graph (`indexed`) and waiting in its tail, searched exactly meanwhile. */
  readonly size: number;
  readonly indexed: number;
  readonly bytesPerVector: number;
  /** The index and its float32 copies (indexBytes + copiesBytes). */
  readonly memoryBytes: number;
  readonly indexBytes: number;
  readonly copiesBytes: number;
  readonly fileBytes: number;
}

/**
 * HNSW indexes (usearch, f16, cosine over normalised vectors), one per tenant and embedding model. They are
 * derived data: the store keeps every vector as float32, and a `generation` counter per (tenant, model) that every
 * write transaction bumps.
 *
 * - An index file is loaded as is when its recorded generation equals the store's. An older file (a crash after
 *   its last checkpoint) is loaded and caught up: the keys the removal log holds after its generation are taken
 *   out, and the live vectors beyond its `through` are added from the store (vector seqs only grow). A file that
 *   cannot be replayed (no `through`, the log pruned past it, corrupt) is rebuilt from the store. Catching up and
 *   rebuilding run in the background, in slices of vectors in seq order between which the event loop serves other
 *   requests, while vector queries for the index wait (ready(), bounded by `wait`).
 * - Writes during a build remove what the build already holds; vectors it has not reached yet it reads itself.
 * - checkpoint() saves changed indexes (after N changed vectors or T ms), atomically: temporary file, fsync,
 *   rename, then the metadata likewise; then the removal log up to the saved generation is pruned.
 * - Memory: the indexes' estimated size is held under `indexMemoryBytes` by saving and evicting the least recently
 *   used ones (reloaded from their files on next use); float32 copies under `exactVectorBytes`.
 */
export class VectorIndexes {
  readonly #db: Db;
  readonly #options: VectorIndexOptions;
  readonly #entries = new Map<string, Entry>();
  readonly #building = new Map<string, Build>();
  readonly #log: RemovalLog;
  readonly #opened: Record<OpenedHow, number> = { file: 0, replay: 0, rebuild: 0 };
  #checkpoints = 0;
  #evictions = 0;
  #uses = 0;
  #closed = false;
  /** Imports in progress: background indexing waits for them to finish (see deferIndexing()). */
  #deferred = 0;
  #indexing = false;
  #bump?: Statement;

  constructor(db: Db, options: VectorIndexOptions) {
    this.#db = db;
    this.#options = options;
    this.#log = new RemovalLog(db);
  }

  /**
   * Bumps and returns the generation of (tenant, model), logging the keys the write takes out of it. Call inside
   * the write transaction.
   */
  bumpGeneration(tenantId: string, model: string, removed: readonly number[] = []): number {
    this.#bump ??= this.#db
      .prepare(
        `INSERT INTO vector_generations (tenant_id, model, generation) VALUES (?, ?, 1)
           ON CONFLICT (tenant_id, model) DO UPDATE SET generation = generation + 1 RETURNING generation`,
      )
      .pluck();
    const generation = this.#bump.get(tenantId, model) as number;
    if (this.#options.dir) this.#log.record(tenantId, model, generation, removed);
    return generation;
  }

  /** Applies a committed write to the in-memory index (loading or rebuilding it first if needed). */
  apply(
    tenantId: string,
    model: string,
    generation: number,
    given: readonly IndexedChunk[],
    removed: readonly number[],
  ): void {
    const settings = this.settings(tenantId, model);
    const added = given.map((a) => ({ ...a, vector: asIndexed(settings, a.vector, a.vector.length) }));
    const key = this.#key(tenantId, model);
    const build = this.#building.get(key);
    if (build) {
      const held = removed.filter((k) => k <= build.through);
      if (held.length > 0) build.index.remove(BigUint64Array.from(held, (k) => BigInt(k)));
      for (const k of held) build.exact?.delete(k);
      return; // added chunks lie beyond the build's position: it reads them from the store
    }
    // Not in memory (no query since the start, or evicted): its file, if it was current just before this write;
    // else its last checkpoint caught up in the background (this write included), else a background build from
    // the store. Left as is, the file would be stale after the write, and the next query would rebuild the index.
    const dims = added[0]?.vector.length;
    const entry =
      this.#entries.get(key) ??
      this.#loadFile(tenantId, model, dims, generation - 1) ??
      this.#first(tenantId, model, dims, added.length);
    if (!entry) {
      if (!this.#startReplay(tenantId, model, dims) && dims !== undefined) this.#startBuild(tenantId, model, dims);
      return;
    }
    if (removed.length > 0) {
      // Removing a key the graph does not hold (still in the tail) changes nothing.
      entry.index.remove(BigUint64Array.from(removed, (k) => BigInt(k)));
      entry.tail.remove(removed, generation);
    }
    // Copies still being filled take the write too: the fill reads only chunks beyond its position, alive.
    for (const k of removed) entry.exact?.delete(k);
    for (const a of added) entry.exact?.set(a.key, a.doc, a.vector);
    this.#enforceBudget();
    // Added vectors join the tail: searched exactly at once, moved into the graph in the background, so the write
    // (durable already) is answered without waiting for HNSW insertion.
    entry.tail.push(
      added.map((a) => a.key),
      generation,
    );
    entry.generation = generation;
    if (entry.tail.size === 0) entry.indexedGeneration = generation;
    entry.dirty += removed.length;
    this.#touch(entry);
    // Beyond the lag allowed, the write waits for the index to take the excess (searching the tail costs more
    // the longer it is).
    const lag = this.#options.maxIndexLag ?? defaultMaxIndexLag;
    while (entry.tail.size > lag)
      this.#indexSome(tenantId, model, entry, Math.max(tailPerSlice, entry.tail.size - lag));
    this.#scheduleIndexing();
    this.#evict(key);
  }

  /**
   * Holds background indexing while a bulk import writes (its writes are answered sooner; searches scan the tail
   * meanwhile); the returned function releases the hold, and indexing resumes once no import holds it.
   */
  deferIndexing(): () => void {
    this.#deferred += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#deferred -= 1;
      this.#scheduleIndexing();
    };
  }

  /** Vectors stored but not in the HNSW graph yet, over every index in memory. */
  lag(): number {
    let lag = 0;
    for (const entry of this.#entries.values()) lag += entry.tail.size;
    return lag;
  }

  /** Moves tails into their indexes, one slice per turn of the event loop, unless an import holds indexing. */
  #scheduleIndexing(): void {
    if (this.#indexing || this.#deferred > 0 || this.#closed) return;
    this.#indexing = true;
    inSlices(() => {
      if (this.#deferred === 0 && !this.#closed) {
        for (const [key, entry] of this.#entries) {
          if (entry.tail.size === 0) continue;
          const [tenantId, space] = JSON.parse(key) as [string, string];
          this.#indexSome(tenantId, space, entry, tailPerSlice);
          return false;
        }
      }
      this.#indexing = false;
      return true;
    });
  }

  /**
   * A new, empty index for the first vectors of a space (the write's own `count` are all the store holds, and
   * there is no file): they join its tail like any write's, with nothing to build from the store.
   */
  #first(tenantId: string, space: string, dims: number | undefined, count: number): Entry | undefined {
    const files = this.#files(tenantId, space);
    if (dims === undefined || this.#closed || (files && existsSync(files.meta))) return undefined;
    if (this.#countAfter(tenantId, space, 0) !== count) return undefined;
    const entry: Entry = {
      index: this.#newIndex(tenantId, space, dims),
      dims,
      generation: 0,
      // The empty graph reflects no write: a checkpoint before its tail is indexed is caught up from the store.
      indexedGeneration: 0,
      tail: new IndexTail(),
      exact: this.#newExact(dims),
      exactReady: true,
      through: 0,
      dirty: 1,
      savedAt: this.#now(),
      used: 0,
      perVector: this.#perVector(tenantId, space, dims),
      source: 'store',
    };
    this.#entries.set(this.#key(tenantId, space), entry);
    this.#opened.rebuild += 1;
    return entry;
  }

  /**
   * Before a save: a short tail (outside imports the background indexing keeps up) is indexed first, so the file is
   * current; a long one is not waited for (it would hold the thread for seconds): the file holds what the graph
   * holds, and the next load catches it up from the store. `budget.left` is what may still be indexed now, shared
   * by the saves of one call.
   */
  #settle(tenantId: string, space: string, entry: Entry, budget = { left: shortTail }): void {
    const size = entry.tail.size;
    if (size === 0 || size > budget.left) return;
    budget.left -= size;
    this.#drain(tenantId, space, entry);
  }

  /** Indexes the whole tail of an index now. */
  #drain(tenantId: string, space: string, entry: Entry): void {
    while (entry.tail.size > 0) this.#indexSome(tenantId, space, entry, 4096);
  }

  /** Adds up to `count` vectors of an index's tail to its graph (from the float32 copies, else the store). */
  #indexSome(tenantId: string, space: string, entry: Entry, count: number): void {
    const { keys, through, generation } = entry.tail.take(count);
    if (keys.length > 0) {
      const dims = entry.dims;
      const matrix = new Float32Array(keys.length * dims);
      const missing: number[] = [];
      keys.forEach((key, i) => {
        const held = entry.exact?.get(key);
        if (held) matrix.set(held.vector, i * dims);
        else missing.push(i);
      });
      if (missing.length > 0) {
        const settings = this.settings(tenantId, space);
        const stored = this.#vectorsByKey(
          tenantId,
          space,
          missing.map((i) => keys[i]!),
        );
        for (const i of missing) {
          const blob = stored.get(keys[i]!);
          if (blob) matrix.set(asIndexed(settings, blob, dims), i * dims);
        }
      }
      entry.index.add(
        BigUint64Array.from(keys, (k) => BigInt(k)),
        matrix,
        0,
      );
      entry.dirty += keys.length;
    }
    if (through > entry.through) entry.through = through;
    if (generation !== undefined) entry.indexedGeneration = generation;
    if (entry.tail.size === 0) entry.indexedGeneration = entry.generation;
  }

  /** Stored vectors of a space by key (the tail's, when the float32 copies are not kept). */
  #vectorsByKey(tenantId: string, space: string, keys: readonly number[]): Map<number, Buffer> {
    const source = this.settings(tenantId, space).source;
    const table = source.kind === 'chunks' ? 'chunks' : 'document_vectors';
    const rows = this.#db
      .prepare(`SELECT seq, vector FROM ${table} WHERE seq IN (SELECT value FROM json_each(?))`)
      .all(JSON.stringify(keys)) as { seq: number; vector: Buffer }[];
    return new Map(rows.map((r) => [r.seq, r.vector]));
  }

  /**
   * Exact distances of keys by the space's distance on float32, as the tail is measured: from the copies, the
   * keys they do not hold read from the store (NaN for a key the store no longer holds: never kept).
   */
  #exactDistances(
    tenantId: string,
    space: string,
    entry: Entry,
    query: Float32Array,
    keys: readonly number[],
  ): number[] {
    const settings = this.settings(tenantId, space);
    const euclidean = settings.distance === 'euclidean';
    const distances = keys.map((key) => entry.exact?.distance(key, query, euclidean ? 'l2sq' : 'dot') ?? NaN);
    const missing = keys.filter((_, i) => Number.isNaN(distances[i]));
    if (missing.length === 0) return distances;
    const stored = this.#vectorsByKey(tenantId, space, missing);
    keys.forEach((key, i) => {
      const blob = Number.isNaN(distances[i]) ? stored.get(key) : undefined;
      if (!blob) return;
      const vector = asIndexed(settings, blob, entry.dims);
      distances[i] = euclidean ? squaredDistance(query, vector) : 1 - dotProduct(query, vector);
    });
    return distances;
  }

  /**
   * The tail's k nearest by the space's distance on float32 (cosine and dot as 1 − dot over the indexed vectors,
   * euclidean squared), of documents in `docs` when given.
   */
  #searchTail(
    tenantId: string,
    space: string,
    entry: Entry,
    query: Float32Array,
    k: number,
    docs?: ReadonlySet<number>,
  ): { keys: number[]; distances: number[] } {
    const nearest = new Nearest(k);
    const euclidean = this.settings(tenantId, space).distance === 'euclidean';
    const distance = (v: Float32Array) => (euclidean ? squaredDistance(query, v) : 1 - dotProduct(query, v));
    const exact = entry.exact;
    if (exact) {
      const metric = euclidean ? 'l2sq' : 'dot';
      for (const key of entry.tail.live()) {
        if (docs && !docs.has(exact.docOf(key) ?? -1)) continue;
        nearest.offer(key, exact.distance(key, query, metric)); // NaN (not held) is never kept
      }
      return nearest.result();
    }
    // No copies in memory (over VECTOR_CACHE_MB): the tail is the live vectors after `through`, read from the store.
    const settings = this.settings(tenantId, space);
    for (const row of this.#after(tenantId, space, entry.through)) {
      if (!docs || docs.has(row.doc_seq)) nearest.offer(row.seq, distance(asIndexed(settings, row.vector, entry.dims)));
    }
    return nearest.result();
  }

  /**
   * Nearest chunks (or client vectors), best first: the k nearest of the HNSW graph's approximate k best and the
   * tail's exact k best (the vectors written but not indexed yet, of documents in `docs` when given). So a document
   * written a moment ago is found as surely as if the graph held it; callers rescore every key exactly.
   */
  search(
    tenantId: string,
    model: string,
    dims: number,
    query: Float32Array,
    k: number,
    docs?: ReadonlySet<number>,
  ): { keys: number[]; distances: number[] } {
    const entry = this.#load(tenantId, model, dims);
    this.#touch(entry);
    const keys: number[] = [];
    const distances: number[] = [];
    if (entry.index.size() > 0) {
      const matches = entry.index.search(query, Math.min(k, entry.index.size()), 1);
      for (let i = 0; i < matches.keys.length; i += 1) {
        const distance = matches.distances[i]!;
        if (!Number.isFinite(distance)) continue;
        keys.push(Number(matches.keys[i]!));
        distances.push(distance);
      }
    }
    if (entry.tail.size === 0) return { keys, distances };
    // The k nearest of graph and tail together, as one index would answer (a filtered search widens k until enough
    // pass, which is right only if the first k are the nearest k): the graph's candidates measured exactly like the
    // tail's, from the copies or else the store, never by the graph's own distance (a b1 graph's is a Hamming
    // count, on another scale than the tail's 1 − cosine).
    const nearest = new Nearest(Math.min(k, entry.index.size() + entry.tail.size));
    const exact = this.#exactDistances(tenantId, model, entry, query, keys);
    keys.forEach((key, i) => nearest.offer(key, exact[i]!));
    const tail = this.#searchTail(tenantId, model, entry, query, Math.min(k, entry.tail.size), docs);
    tail.keys.forEach((key, i) => nearest.offer(key, tail.distances[i]!));
    return nearest.result();
  }

  /** The float32 copies of the index of (tenant, model), when loaded and complete; null otherwise. */
  exactVectors(tenantId: string, model: string): ExactVectors | null {
    const entry = this.#entries.get(this.#key(tenantId, model));
    return entry?.exactReady ? entry.exact : null;
  }

  /**
   * Resolves once the index of (tenant, model) is in memory: loaded from its file when that is current, else its
   * last checkpoint caught up, else built from the store, in the background (one build however many callers
   * wait). With `wait` set, a caller waits at most that long, then gets 503 INDEX_LOADING with the progress.
   */
  async ready(tenantId: string, model: string, dims: number): Promise<void> {
    const key = this.#key(tenantId, model);
    const entry = this.#entries.get(key) ?? this.#loadFile(tenantId, model, dims);
    if (entry) {
      this.#touch(entry);
      return;
    }
    if (this.#closed) throw createError('SHUTTING_DOWN', { reason: 'the vector index was not loaded' });
    const build =
      this.#building.get(key) ?? this.#startReplay(tenantId, model, dims) ?? this.#startBuild(tenantId, model, dims);
    const wait = this.#options.wait;
    if (!wait) return build.done;
    let settled = false;
    await Promise.race([
      build.done.finally(() => (settled = true)),
      wait().then(() => {
        if (settled) return;
        throw createError('INDEX_LOADING', {
          how: build.how === 'replay' ? 'catching up from its last checkpoint' : 'being rebuilt from the store',
          done: build.added,
          total: build.total,
        });
      }),
    ]);
  }

  /** Stops builds in progress (the store is closing); their waiters get an error. */
  close(): void {
    this.#closed = true;
    for (const build of this.#building.values())
      build.fail(createError('SHUTTING_DOWN', { reason: 'the vector index was still loading' }));
    this.#building.clear();
  }

  /** Number of vectors in the index of (tenant, model): in its graph and in its tail. */
  size(tenantId: string, model: string, dims: number): number {
    const entry = this.#load(tenantId, model, dims);
    return entry.index.size() + entry.tail.size;
  }

  /** Rebuilds the index of (tenant, model) from the store and saves it; returns the number of vectors. */
  rebuild(tenantId: string, model: string, dims: number): number {
    const key = this.#key(tenantId, model);
    const running = this.#building.get(key); // replaced: its waiters get this index
    this.#entries.delete(key);
    this.#building.delete(key);
    let entry: Entry;
    try {
      entry = this.#build(tenantId, model, dims);
    } catch (error) {
      running?.fail(error);
      throw error;
    }
    running?.resolve();
    this.#save(tenantId, model, entry);
    return entry.index.size();
  }

  /**
   * Saves every loaded index that changed since its file was written (on shutdown, before a snapshot). Short tails
   * are indexed first, shortest first, up to a few thousand vectors in all: those files are current, and the next
   * start loads them as they are. A longer tail (after a bulk import) is not drained here, which would hold the
   * thread — and every request — for as long as HNSW takes to insert it (minutes at a million): the file records
   * the graph as it is, with the generation and `through` it reflects and the removal log kept from there, so the
   * next load catches it up from the store. Every acknowledged write is in the store, so none is lost either way.
   */
  saveAll(): void {
    if (!this.#options.dir) return; // nothing to save: memory-only indexes are rebuilt from the store on start
    const budget = { left: shortTail };
    const entries = [...this.#entries].sort(([, a], [, b]) => a.tail.size - b.tail.size);
    for (const [key, entry] of entries) {
      const [tenantId, model] = JSON.parse(key) as [string, string];
      this.#settle(tenantId, model, entry, budget);
      const files = this.#files(tenantId, model);
      if (entry.dirty > 0 || (files && !existsSync(files.meta))) this.#save(tenantId, model, entry);
    }
  }

  /**
   * Saves the indexes whose checkpoint is due: `checkpoint.writes` vectors changed since their last save, or any
   * change `checkpoint.intervalMs` after it. Call it often (the server does every second): it costs nothing when
   * nothing is due. A save holds the thread while usearch writes the file. Returns the number saved.
   */
  checkpoint(): number {
    if (!this.#options.dir || this.#closed) return 0;
    const { writes, intervalMs } = this.#options.checkpoint ?? defaultCheckpoint;
    const now = this.#now();
    const budget = { left: shortTail };
    let saved = 0;
    for (const [key, entry] of this.#entries) {
      // A short tail counts as changes (it is indexed and saved with the rest); a long one does not: the save would
      // not include it, and while the graph catches up a save is due every `writes` vectors it took, as before.
      const changed = entry.dirty + (entry.tail.size <= shortTail ? entry.tail.size : 0);
      if (changed === 0 || (changed < writes && now - entry.savedAt < intervalMs)) continue;
      const [tenantId, model] = JSON.parse(key) as [string, string];
      this.#settle(tenantId, model, entry, budget);
      if (entry.dirty === 0) continue; // the graph is as saved: nothing to write yet
      this.#save(tenantId, model, entry);
      saved += 1;
    }
    return saved;
  }

  /**
   * Starts loading, in the background, the indexes that have files (most recently saved first), until the index
   * memory budget is reached: after a restart vector queries find them ready, or catching up, rather than starting
   * the work on their first query.
   */
  warmUp(): void {
    if (!this.#options.dir) return;
    const spaces = (
      this.#db.prepare('SELECT tenant_id, model FROM vector_generations').all() as {
        tenant_id: string;
        model: string;
      }[]
    )
      .flatMap(({ tenant_id: tenantId, model }) => {
        const files = this.#files(tenantId, model)!;
        const meta = readMeta(files.meta);
        return meta && existsSync(files.index) ? [{ tenantId, model, meta, time: statSync(files.index).mtimeMs }] : [];
      })
      .sort((a, b) => b.time - a.time);
    const budget = this.#options.indexMemoryBytes ?? Infinity;
    inSlices(() => {
      const next = spaces.shift();
      if (!next || this.#closed || this.memory().indexBytes >= budget) return true;
      const { tenantId, model, meta } = next;
      const key = this.#key(tenantId, model);
      if (!this.#entries.has(key) && !this.#building.has(key) && !this.#loadFile(tenantId, model, meta.dims)) {
        if (!this.#startReplay(tenantId, model, meta.dims)) this.#startBuild(tenantId, model, meta.dims);
      }
      return spaces.length === 0;
    });
  }

  /** The indexes loading or catching up now, with their progress. */
  loading(): LoadingIndex[] {
    return [...this.#building.entries()].map(([key, build]) => {
      const [, space] = JSON.parse(key) as [string, string];
      const source = parseSpaceKey(space);
      return {
        space: source.kind === 'chunks' ? source.model : 'collection',
        how: build.how,
        done: build.added,
        total: build.total,
      };
    });
  }

  /** How the indexes came into memory since start, checkpoints written and evictions. */
  counters(): VectorCounters {
    return { opened: { ...this.#opened }, checkpoints: this.#checkpoints, evictions: this.#evictions };
  }

  /** Memory held by the indexes (estimated from their sizes) and by their float32 copies, with the budgets. */
  memory(): VectorMemory {
    let indexBytes = 0;
    let copiesBytes = 0;
    for (const entry of this.#entries.values()) {
      indexBytes += this.#indexBytes(entry);
      copiesBytes += entry.exact?.bytes ?? 0;
    }
    for (const build of this.#building.values()) copiesBytes += build.exact?.bytes ?? 0;
    return {
      indexBytes,
      indexBudget: this.#options.indexMemoryBytes ?? Infinity,
      copiesBytes,
      copiesBudget: this.#options.exactVectorBytes,
    };
  }

  #key(tenantId: string, model: string): string {
    return JSON.stringify([tenantId, model]);
  }

  #now(): number {
    return this.#options.clock?.now() ?? 0;
  }

  #touch(entry: Entry): void {
    this.#uses += 1;
    entry.used = this.#uses;
  }

  /** The graph's estimated memory, its tail counted in (the graph takes it soon). */
  #indexBytes(entry: Entry): number {
    return Math.round((entry.index.size() + entry.tail.size) * entry.perVector);
  }

  #perVector(tenantId: string, space: string, dims: number): number {
    const settings = this.settings(tenantId, space);
    return indexBytesPerVector(dims, settings.storage, settings.hnsw.m);
  }

  /**
   * Saves and forgets the least recently used indexes while their memory passes the budget; `keep` (the index
   * being used) stays. Their next use loads them from their files, which are current.
   */
  #evict(keep: string): void {
    const budget = this.#options.indexMemoryBytes ?? Infinity;
    if (!this.#options.dir || budget === Infinity) return;
    let total = this.memory().indexBytes;
    while (total > budget) {
      let victim: [string, Entry] | undefined;
      for (const pair of this.#entries)
        if (pair[0] !== keep && (!victim || pair[1].used < victim[1].used)) victim = pair;
      if (!victim) return;
      const [key, entry] = victim;
      const [tenantId, model] = JSON.parse(key) as [string, string];
      const files = this.#files(tenantId, model)!;
      this.#settle(tenantId, model, entry);
      if (entry.dirty > 0 || !existsSync(files.meta)) this.#save(tenantId, model, entry);
      total -= this.#indexBytes(entry);
      this.#entries.delete(key);
      this.#evictions += 1;
    }
  }

  /** The settings of a space: a model's, or a collection vector's. */
  settings(tenantId: string, space: string): SpaceSettings {
    return this.#options.spaceSettings?.(tenantId, space) ?? modelSpace(space);
  }

  /** State, size and memory of the index of a space, without loading it. */
  stats(tenantId: string, space: string, dims: number): IndexStats {
    const key = this.#key(tenantId, space);
    const entry = this.#entries.get(key);
    const settings = this.settings(tenantId, space);
    const perVector = indexBytesPerVector(dims, settings.storage, settings.hnsw.m);
    const files = this.#files(tenantId, space);
    const fileBytes = files && existsSync(files.index) ? statSync(files.index).size : 0;
    if (!entry) {
      return {
        state: this.#building.has(key) ? 'loading' : 'not loaded',
        size: 0,
        indexed: 0,
        bytesPerVector: perVector,
        memoryBytes: 0,
        indexBytes: 0,
        copiesBytes: 0,
        fileBytes,
      };
    }
    const indexed = entry.index.size();
    const indexBytes = Math.round(indexed * perVector);
    const copiesBytes = entry.exact?.bytes ?? 0;
    return {
      state: 'ready',
      source: entry.source,
      size: indexed + entry.tail.size,
      indexed,
      bytesPerVector: perVector,
      memoryBytes: indexBytes + copiesBytes,
      indexBytes,
      copiesBytes,
      fileBytes,
    };
  }

  /**
   * Forgets the in-memory index of a space after saving it, so the next query loads it with the space's current
   * settings (ef_search changes without a rebuild: the file keeps the graph).
   */
  reload(tenantId: string, space: string): void {
    const key = this.#key(tenantId, space);
    const entry = this.#entries.get(key);
    if (!entry) return;
    if (this.#options.dir) this.#save(tenantId, space, entry);
    else entry.index = this.#reopen(tenantId, space, entry);
    if (this.#options.dir) this.#entries.delete(key);
  }

  /**
   * Forgets every index of a tenant without saving it: its rows were replaced (a tenant restore), so the next
   * query loads the restored files, or rebuilds from the restored rows when they are not current. Builds in
   * progress stop, and their waiters go on to that load.
   */
  forgetTenant(tenantId: string): void {
    for (const map of [this.#entries, this.#building] as Map<string, unknown>[]) {
      for (const key of [...map.keys()]) {
        if ((JSON.parse(key) as [string, string])[0] !== tenantId) continue;
        this.#building.get(key)?.resolve();
        map.delete(key);
      }
    }
    // Its removal log described the replaced rows: from now on only a file at the restored generation is trusted
    // (an older one is rebuilt, never replayed with removals that no longer apply).
    this.#log.forgetTenant(tenantId);
  }

  /** Removes a space's index: in memory, its files, its removal log and its generation (its collection or vector is gone). */
  drop(tenantId: string, space: string): void {
    const key = this.#key(tenantId, space);
    this.#building.get(key)?.resolve();
    this.#building.delete(key);
    this.#entries.delete(key);
    const files = this.#files(tenantId, space);
    if (files) for (const file of [files.index, files.meta]) rmSync(file, { force: true });
    this.#log.drop(tenantId, space);
    this.#db.prepare('DELETE FROM vector_generations WHERE tenant_id = ? AND model = ?').run(tenantId, space);
  }

  /** An in-memory index copied into a new one with the space's current settings (memory-only mode). */
  #reopen(tenantId: string, space: string, entry: Entry): Index {
    const index = this.#newIndex(tenantId, space, entry.dims);
    const rows = this.#all(tenantId, space);
    for (const row of rows) {
      const vector = asIndexed(this.settings(tenantId, space), row.vector, entry.dims);
      index.add(BigInt(row.seq), vector, 0);
      if (row.seq > entry.through) entry.through = row.seq;
    }
    entry.tail.clear(); // every stored vector is in the new graph
    entry.indexedGeneration = entry.generation;
    return index;
  }

  #generation(tenantId: string, model: string): number {
    return (
      (this.#db
        .prepare('SELECT generation FROM vector_generations WHERE tenant_id = ? AND model = ?')
        .pluck()
        .get(tenantId, model) as number | undefined) ?? 0
    );
  }

  #files(tenantId: string, model: string): { index: string; meta: string } | null {
    if (!this.#options.dir) return null;
    const base = join(this.#options.dir, encodeURIComponent(tenantId), encodeURIComponent(model));
    return { index: `${base}.usearch`, meta: `${base}.meta.json` };
  }

  #newIndex(tenantId: string, space: string, dims: number): Index {
    const settings = this.#options.spaceSettings?.(tenantId, space);
    return new Index({
      dimensions: dims,
      metric: settings ? metricOf(settings) : MetricKind.Cos,
      quantization: settings ? scalarOf[settings.storage] : ScalarKind.F16,
      connectivity: settings?.hnsw.m ?? this.#options.connectivity,
      expansion_add: settings?.hnsw.ef_construction ?? this.#options.expansionAdd,
      expansion_search: settings?.hnsw.ef_search ?? this.#options.expansionSearch,
      multi: false,
    });
  }

  /** The index of (tenant, model), loaded or built now (a build or catch-up in progress is finished synchronously). */
  #load(tenantId: string, model: string, dims: number): Entry {
    const key = this.#key(tenantId, model);
    const cached = this.#entries.get(key) ?? this.#loadFile(tenantId, model, dims);
    if (cached) return cached;
    const build = this.#building.get(key) ?? this.#startReplay(tenantId, model, dims);
    build?.finish();
    return this.#entries.get(key) ?? this.#build(tenantId, model, dims);
  }

  /**
   * The index from its file when the file is current — recorded at `generation`, the store's by default, and of
   * `dims` dimensions when given; undefined otherwise.
   */
  #loadFile(
    tenantId: string,
    model: string,
    dims: number | undefined,
    generation = this.#generation(tenantId, model),
  ): Entry | undefined {
    const key = this.#key(tenantId, model);
    const cached = this.#entries.get(key);
    if (cached) return cached;
    if (this.#building.has(key)) return undefined;
    const files = this.#files(tenantId, model);
    if (!files) return undefined;
    const meta = readMeta(files.meta);
    if (!meta || meta.generation !== generation || (dims !== undefined && meta.dims !== dims)) return undefined;
    const index = this.#read(tenantId, model, files.index, meta);
    if (!index) return undefined;
    const entry: Entry = {
      index,
      dims: meta.dims,
      generation,
      indexedGeneration: generation,
      tail: new IndexTail(),
      exact: this.#newExact(meta.dims),
      exactReady: false,
      // A file saved before checkpoints recorded `through`: current, so it holds every vector stored so far.
      through: meta.through ?? this.#maxSeq(tenantId, model),
      dirty: meta.through === undefined ? 1 : 0,
      savedAt: this.#now(),
      used: 0,
      perVector: this.#perVector(tenantId, model, meta.dims),
      source: 'file',
    };
    this.#entries.set(key, entry);
    this.#opened.file += 1;
    this.#touch(entry);
    this.#fillExact(tenantId, model, entry);
    this.#evict(key);
    return entry;
  }

  /** An index file read into a new index; undefined when it cannot be (a corrupt file is never trusted). */
  #read(tenantId: string, model: string, path: string, meta: IndexMeta): Index | undefined {
    removeTemporary(path);
    if (!existsSync(path)) return undefined;
    try {
      const index = this.#newIndex(tenantId, model, meta.dims);
      index.load(path);
      return index;
    } catch {
      return undefined;
    }
  }

  /**
   * Starts catching up the last checkpoint of (tenant, model) when its file can be replayed: it records `through`,
   * its generation is not ahead of the store's, and the removal log covers every write since. The keys removed
   * since are taken out now; the vectors added since are read in the background like a build's. Undefined when
   * the file cannot be replayed.
   */
  #startReplay(tenantId: string, model: string, dims: number | undefined): Build | undefined {
    const files = this.#files(tenantId, model);
    if (!files || this.#closed) return undefined;
    const meta = readMeta(files.meta);
    if (!meta || meta.through === undefined || (dims !== undefined && meta.dims !== dims)) return undefined;
    if (meta.generation > this.#generation(tenantId, model) || !this.#log.covers(tenantId, model, meta.generation))
      return undefined;
    const index = this.#read(tenantId, model, files.index, meta);
    if (!index) return undefined;
    const removed = this.#log.since(tenantId, model, meta.generation);
    if (removed.length > 0) index.remove(BigUint64Array.from(removed, (k) => BigInt(k)));
    return this.#startBuild(tenantId, model, meta.dims, { index, through: meta.through, removed: removed.length });
  }

  /**
   * Starts building the index of (tenant, model) from the store, one slice per turn of the event loop: from
   * nothing, or (`from`) from a checkpoint whose later removals are already applied.
   */
  #startBuild(
    tenantId: string,
    model: string,
    dims: number,
    from?: { index: Index; through: number; removed: number },
  ): Build {
    const key = this.#key(tenantId, model);
    const page = this.#page(tenantId, model);
    const settings = this.settings(tenantId, model);
    let settle!: { resolve: () => void; reject: (error: unknown) => void };
    const done = new Promise<void>((resolve, reject) => (settle = { resolve, reject }));
    done.catch(() => {}); // a build nobody waits for may fail quietly
    const build: Build = {
      index: from?.index ?? this.#newIndex(tenantId, model, dims),
      // A replay fills the copies of the whole index afterwards (the file holds none).
      exact: from ? null : this.#newExact(dims),
      dims,
      through: from?.through ?? 0,
      how: from ? 'replay' : 'rebuild',
      added: 0,
      total: this.#countAfter(tenantId, model, from?.through ?? 0),
      done,
      finish: () => {
        while (this.#building.get(key) === build && !slice()) {
          // run the remaining slices now
        }
      },
      resolve: () => settle.resolve(),
      fail: (error) => settle.reject(error),
    };
    /** Adds one slice; true when the build is complete (or abandoned). */
    const slice = (): boolean => {
      if (this.#building.get(key) !== build || this.#closed) return true;
      try {
        const read = page(build.through);
        // Catching up onto an index saved after its metadata (a crash between the two renames): skip what it holds.
        const held =
          from && read.length > 0 ? build.index.contains(BigUint64Array.from(read, (r) => BigInt(r.seq))) : [];
        const rows = from ? read.filter((_, i) => !(held as boolean[])[i]) : read;
        if (rows.length > 0) {
          const matrix = new Float32Array(rows.length * dims);
          rows.forEach((row, i) => {
            const vector = asIndexed(settings, row.vector, dims);
            matrix.set(vector, i * dims);
            build.exact?.set(row.seq, row.doc_seq, vector);
          });
          this.#enforceBudget();
          build.index.add(
            BigUint64Array.from(rows, (row) => BigInt(row.seq)),
            matrix,
            0,
          );
          build.added += rows.length;
        }
        if (read.length > 0) build.through = read[read.length - 1]!.seq;
        if (read.length === vectorsPerSlice) return false;
        this.#building.delete(key);
        const generation = this.#generation(tenantId, model);
        const entry: Entry = {
          index: build.index,
          dims,
          generation,
          indexedGeneration: generation,
          tail: new IndexTail(),
          exact: from ? this.#newExact(dims) : build.exact, // null: dropped over the budget during the build
          exactReady: !from && build.exact !== null,
          through: build.through,
          dirty: Math.max(1, build.added + (from?.removed ?? 0)),
          savedAt: this.#now(),
          used: 0,
          perVector: this.#perVector(tenantId, model, dims),
          source: from ? 'file' : 'store',
        };
        this.#entries.set(key, entry);
        this.#opened[build.how] += 1;
        this.#touch(entry);
        if (from) this.#fillExact(tenantId, model, entry);
        this.#evict(key);
        settle.resolve();
      } catch (error) {
        this.#building.delete(key);
        settle.reject(error);
      }
      return true;
    };
    this.#building.set(key, build);
    inSlices(slice);
    return build;
  }

  /** Live vectors of a space after a seq (what a build from there reads). */
  #countAfter(tenantId: string, space: string, through: number): number {
    const source = this.settings(tenantId, space).source;
    if (source.kind === 'chunks') {
      return this.#db
        .prepare(
          `SELECT count(*) FROM chunks c JOIN documents d ON d.seq = c.doc_seq
           WHERE c.tenant_id = ? AND c.model = ? AND c.vector IS NOT NULL AND ${alive} AND c.seq > ?`,
        )
        .pluck()
        .get(tenantId, source.model, through) as number;
    }
    return this.#db
      .prepare(
        `SELECT count(*) FROM document_vectors v JOIN documents d ON d.seq = v.doc_seq
         WHERE v.tenant_id = ? AND v.collection = ? AND v.name = ? AND ${alive} AND v.seq > ?`,
      )
      .pluck()
      .get(tenantId, source.collection, source.name, through) as number;
  }

  /** The highest vector seq a space has ever stored (dead ones included). */
  #maxSeq(tenantId: string, space: string): number {
    const source = this.settings(tenantId, space).source;
    const found =
      source.kind === 'chunks'
        ? this.#db
            .prepare('SELECT max(seq) FROM chunks WHERE tenant_id = ? AND model = ?')
            .pluck()
            .get(tenantId, source.model)
        : this.#db
            .prepare('SELECT max(seq) FROM document_vectors WHERE tenant_id = ? AND collection = ? AND name = ?')
            .pluck()
            .get(tenantId, source.collection, source.name);
    return (found as number | null) ?? 0;
  }

  /** Live vectors of a space after a seq, in seq order, one slice at a time. */
  #page(tenantId: string, space: string): (through: number) => PageRow[] {
    const source = this.settings(tenantId, space).source;
    if (source.kind === 'chunks') {
      const statement = this.#db.prepare(
        `SELECT c.seq, c.doc_seq, c.vector FROM chunks c JOIN documents d ON d.seq = c.doc_seq
         WHERE c.tenant_id = ? AND c.model = ? AND c.vector IS NOT NULL AND ${alive} AND c.seq > ?
         ORDER BY c.seq LIMIT ${vectorsPerSlice}`,
      );
      return (through) => statement.all(tenantId, source.model, through) as PageRow[];
    }
    const statement = this.#db.prepare(
      `SELECT v.seq, v.doc_seq, v.vector FROM document_vectors v JOIN documents d ON d.seq = v.doc_seq
       WHERE v.tenant_id = ? AND v.collection = ? AND v.name = ? AND ${alive} AND v.seq > ?
       ORDER BY v.seq LIMIT ${vectorsPerSlice}`,
    );
    return (through) => statement.all(tenantId, source.collection, source.name, through) as PageRow[];
  }

  /** The live vectors of a space after a seq, in seq order (an index's tail, from the store). */
  #after(tenantId: string, space: string, through: number): IterableIterator<PageRow> {
    const source = this.settings(tenantId, space).source;
    if (source.kind === 'chunks') {
      return this.#db
        .prepare(
          `SELECT c.seq, c.doc_seq, c.vector FROM chunks c JOIN documents d ON d.seq = c.doc_seq
           WHERE c.tenant_id = ? AND c.model = ? AND c.vector IS NOT NULL AND ${alive} AND c.seq > ? ORDER BY c.seq`,
        )
        .iterate(tenantId, source.model, through) as IterableIterator<PageRow>;
    }
    return this.#db
      .prepare(
        `SELECT v.seq, v.doc_seq, v.vector FROM document_vectors v JOIN documents d ON d.seq = v.doc_seq
         WHERE v.tenant_id = ? AND v.collection = ? AND v.name = ? AND ${alive} AND v.seq > ? ORDER BY v.seq`,
      )
      .iterate(tenantId, source.collection, source.name, through) as IterableIterator<PageRow>;
  }

  /** Every live vector of a space, in seq order. */
  #all(tenantId: string, space: string): IterableIterator<PageRow> {
    const source = this.settings(tenantId, space).source;
    if (source.kind === 'chunks') {
      return this.#db
        .prepare(
          `SELECT c.seq, c.doc_seq, c.vector FROM chunks c JOIN documents d ON d.seq = c.doc_seq
           WHERE c.tenant_id = ? AND c.model = ? AND c.vector IS NOT NULL AND ${alive}`,
        )
        .iterate(tenantId, source.model) as IterableIterator<PageRow>;
    }
    return this.#db
      .prepare(
        `SELECT v.seq, v.doc_seq, v.vector FROM document_vectors v JOIN documents d ON d.seq = v.doc_seq
         WHERE v.tenant_id = ? AND v.collection = ? AND v.name = ? AND ${alive}`,
      )
      .iterate(tenantId, source.collection, source.name) as IterableIterator<PageRow>;
  }

  #newExact(dims: number): ExactVectors | null {
    return this.#options.exactVectorBytes > 0 ? new ExactVectors(dims) : null;
  }

  /** Fills the float32 copies of an index loaded from its file, in the background; searches rescore from the store meanwhile. */
  #fillExact(tenantId: string, model: string, entry: Entry): void {
    const page = this.#page(tenantId, model);
    const settings = this.settings(tenantId, model);
    let through = 0;
    inSlices(() => {
      const exact = entry.exact;
      if (this.#closed || !exact || this.#entries.get(this.#key(tenantId, model)) !== entry) return true;
      const rows = page(through);
      for (const row of rows) exact.set(row.seq, row.doc_seq, asIndexed(settings, row.vector, entry.dims));
      this.#enforceBudget();
      if (rows.length === vectorsPerSlice) {
        through = rows[rows.length - 1]!.seq;
        return false;
      }
      entry.exactReady = entry.exact !== null;
      return true;
    });
  }

  /** Drops float32 copies while all of them together pass the memory budget (largest first). */
  #enforceBudget(extra?: Entry): void {
    const holders: (Entry | Build)[] = [...this.#entries.values(), ...this.#building.values()];
    if (extra && !holders.includes(extra)) holders.push(extra);
    let total = holders.reduce((sum, h) => sum + (h.exact?.bytes ?? 0), 0);
    while (total > this.#options.exactVectorBytes) {
      const largest = holders.reduce((a, b) => ((b.exact?.bytes ?? 0) > (a.exact?.bytes ?? 0) ? b : a));
      total -= largest.exact?.bytes ?? 0;
      largest.exact = null;
      if ('exactReady' in largest) largest.exactReady = false;
    }
  }

  #build(tenantId: string, model: string, dims: number): Entry {
    const generation = this.#generation(tenantId, model);
    const index = this.#newIndex(tenantId, model, dims);
    const entry: Entry = {
      index,
      dims,
      generation,
      indexedGeneration: generation,
      tail: new IndexTail(),
      exact: this.#newExact(dims),
      exactReady: true,
      through: 0,
      dirty: 1,
      savedAt: this.#now(),
      used: 0,
      perVector: this.#perVector(tenantId, model, dims),
      source: 'store',
    };
    const settings = this.settings(tenantId, model);
    const rows = this.#all(tenantId, model);
    const batch = 4096;
    let keys: bigint[] = [];
    let matrix = new Float32Array(batch * dims);
    const flush = () => {
      if (keys.length === 0) return;
      index.add(BigUint64Array.from(keys), matrix.subarray(0, keys.length * dims), 0);
      keys = [];
      matrix = new Float32Array(batch * dims);
    };
    for (const row of rows) {
      const vector = asIndexed(settings, row.vector, dims);
      matrix.set(vector, keys.length * dims);
      entry.exact?.set(row.seq, row.doc_seq, vector);
      keys.push(BigInt(row.seq));
      entry.through = Math.max(entry.through, row.seq);
      if (keys.length === batch) {
        flush();
        this.#enforceBudget(entry);
      }
    }
    flush();
    const key = this.#key(tenantId, model);
    this.#entries.set(key, entry);
    this.#opened.rebuild += 1;
    this.#touch(entry);
    this.#enforceBudget();
    this.#evict(key);
    return entry;
  }

  #save(tenantId: string, model: string, entry: Entry): void {
    const files = this.#files(tenantId, model);
    if (!files) return;
    mkdirSync(join(files.index, '..'), { recursive: true });
    // The index first, then its metadata: a crash between the two leaves the older metadata beside the newer
    // index, and replaying from the older checkpoint onto it is harmless (removing a key twice changes nothing,
    // and a vector already in the index is not added again).
    writeDurably(files.index, (tmp) => entry.index.save(tmp));
    // The generation the graph reflects: while the index is behind (a tail waiting), an older one, so the next
    // start catches the file up from the store instead of taking it as current.
    writeMeta(files.meta, {
      generation: entry.indexedGeneration,
      dims: entry.dims,
      count: entry.index.size(),
      through: entry.through,
    });
    this.#log.prune(tenantId, model, entry.indexedGeneration);
    entry.dirty = 0;
    entry.savedAt = this.#now();
    this.#checkpoints += 1;
  }
}
