import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Index, MetricKind, ScalarKind } from 'usearch';
import { createError } from '@godb/contract';
import type { Db } from '../storage/database.js';
import { inSlices } from '../in-slices.js';
import { ExactVectors } from './exact-vectors.js';
import { indexBytesPerVector, modelSpace, type SpaceSettings } from '../collections/vector-space.js';

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
}

export const defaultVectorIndexOptions: Omit<VectorIndexOptions, 'dir'> = {
  connectivity: 16,
  expansionAdd: 200,
  expansionSearch: 100,
  exactVectorBytes: 1024 * 1024 * 1024,
};

interface Entry {
  index: Index;
  readonly dims: number;
  generation: number;
  /** Float32 copies of the index's vectors (null: over the memory budget); usable once `exactReady`. */
  exact: ExactVectors | null;
  exactReady: boolean;
  /** Loaded from its file as it was, or built from the stored vectors. */
  readonly source: 'file' | 'store';
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
  readonly done: Promise<void>;
  finish(): void;
  /** Settles the waiters: the index is ready (built by this build or by a rebuild that replaced it), or not. */
  resolve(): void;
  fail(error: unknown): void;
}

/** Vectors added per slice of a background build: tens of milliseconds, so other requests keep being served. */
const vectorsPerSlice = 512;

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
  const norm = Math.hypot(...vector);
  return norm > 0 ? vector.map((x) => x / norm) : vector;
}

/** What the collection info shows of one index. */
export interface IndexStats {
  readonly state: 'not loaded' | 'loading' | 'ready';
  /** How a ready index came to memory. */
  readonly source?: 'file' | 'store';
  readonly size: number;
  readonly bytesPerVector: number;
  readonly memoryBytes: number;
  readonly fileBytes: number;
}

/**
 * HNSW indexes (usearch, f16, cosine over normalised vectors), one per tenant and embedding model. They are
 * derived data: the store keeps every vector as float32, and a `generation` counter per (tenant, model) that every
 * write transaction bumps. An index file is trusted only when its recorded generation equals the store's;
 * otherwise (a crash, a copy, a corrupt file) it is rebuilt from the store: in the background, in slices of chunks
 * in seq order between which the event loop serves other requests, while vector queries for it wait (ready()).
 * Writes during a build remove what the build already holds; chunks it has not reached yet it reads itself (chunk
 * seqs only grow).
 */
export class VectorIndexes {
  readonly #db: Db;
  readonly #options: VectorIndexOptions;
  readonly #entries = new Map<string, Entry>();
  readonly #building = new Map<string, Build>();
  #closed = false;

  constructor(db: Db, options: VectorIndexOptions) {
    this.#db = db;
    this.#options = options;
  }

  /** Bumps and returns the generation of (tenant, model). Call inside the write transaction. */
  bumpGeneration(tenantId: string, model: string): number {
    return this.#db
      .prepare(
        `INSERT INTO vector_generations (tenant_id, model, generation) VALUES (?, ?, 1)
           ON CONFLICT (tenant_id, model) DO UPDATE SET generation = generation + 1 RETURNING generation`,
      )
      .pluck()
      .get(tenantId, model) as number;
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
    // Not in memory (no query since the start): its file, if it was current just before this write, else a
    // background build from the store, which holds this write. Left as is, the file would be stale after the
    // write, and the next query would rebuild the whole index.
    const dims = added[0]?.vector.length;
    const entry = this.#entries.get(key) ?? this.#loadFile(tenantId, model, dims, generation - 1);
    if (!entry) {
      if (dims !== undefined) this.#startBuild(tenantId, model, dims);
      return;
    }
    if (removed.length > 0) entry.index.remove(BigUint64Array.from(removed, (k) => BigInt(k)));
    // Copies still being filled take the write too: the fill reads only chunks beyond its position, alive.
    for (const k of removed) entry.exact?.delete(k);
    for (const a of added) entry.exact?.set(a.key, a.doc, a.vector);
    this.#enforceBudget();
    if (added.length > 0) {
      const dims = entry.dims;
      const matrix = new Float32Array(added.length * dims);
      added.forEach((a, i) => matrix.set(a.vector, i * dims));
      entry.index.add(
        BigUint64Array.from(added, (a) => BigInt(a.key)),
        matrix,
        0,
      );
    }
    entry.generation = generation;
  }

  /** Approximate nearest chunks by cosine: keys (chunk seqs) and cosine distances, best first. */
  search(
    tenantId: string,
    model: string,
    dims: number,
    query: Float32Array,
    k: number,
  ): { keys: number[]; distances: number[] } {
    const entry = this.#load(tenantId, model, dims);
    if (entry.index.size() === 0) return { keys: [], distances: [] };
    const matches = entry.index.search(query, Math.min(k, entry.index.size()), 1);
    const keys: number[] = [];
    const distances: number[] = [];
    for (let i = 0; i < matches.keys.length; i += 1) {
      const distance = matches.distances[i]!;
      if (!Number.isFinite(distance)) continue;
      keys.push(Number(matches.keys[i]!));
      distances.push(distance);
    }
    return { keys, distances };
  }

  /** The float32 copies of the index of (tenant, model), when loaded and complete; null otherwise. */
  exactVectors(tenantId: string, model: string): ExactVectors | null {
    const entry = this.#entries.get(this.#key(tenantId, model));
    return entry?.exactReady ? entry.exact : null;
  }

  /**
   * Resolves once the index of (tenant, model) is in memory: loaded from its file when that is current, else built
   * from the store in the background (one build however many callers wait).
   */
  async ready(tenantId: string, model: string, dims: number): Promise<void> {
    const key = this.#key(tenantId, model);
    if (this.#entries.has(key) || this.#loadFile(tenantId, model, dims)) return;
    if (this.#closed) throw createError('SHUTTING_DOWN', { reason: 'the vector index was not loaded' });
    await (this.#building.get(key) ?? this.#startBuild(tenantId, model, dims)).done;
  }

  /** Stops builds in progress (the store is closing); their waiters get an error. */
  close(): void {
    this.#closed = true;
    for (const build of this.#building.values())
      build.fail(createError('SHUTTING_DOWN', { reason: 'the vector index was still loading' }));
    this.#building.clear();
  }

  /** Number of vectors in the index of (tenant, model). */
  size(tenantId: string, model: string, dims: number): number {
    return this.#load(tenantId, model, dims).index.size();
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

  /** Saves every loaded index (on shutdown). */
  saveAll(): void {
    for (const [key, entry] of this.#entries) {
      const [tenantId, model] = JSON.parse(key) as [string, string];
      this.#save(tenantId, model, entry);
    }
  }

  #key(tenantId: string, model: string): string {
    return JSON.stringify([tenantId, model]);
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
        bytesPerVector: perVector,
        memoryBytes: 0,
        fileBytes,
      };
    }
    const size = entry.index.size();
    return {
      state: 'ready',
      source: entry.source,
      size,
      bytesPerVector: perVector,
      memoryBytes: Math.round(size * perVector) + (entry.exact?.bytes ?? 0),
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
  }

  /** Removes a space's index: in memory, its files and its generation (its collection or vector is gone). */
  drop(tenantId: string, space: string): void {
    const key = this.#key(tenantId, space);
    this.#building.get(key)?.resolve();
    this.#building.delete(key);
    this.#entries.delete(key);
    const files = this.#files(tenantId, space);
    if (files) for (const file of [files.index, files.meta]) rmSync(file, { force: true });
    this.#db.prepare('DELETE FROM vector_generations WHERE tenant_id = ? AND model = ?').run(tenantId, space);
  }

  /** An in-memory index copied into a new one with the space's current settings (memory-only mode). */
  #reopen(tenantId: string, space: string, entry: Entry): Index {
    const index = this.#newIndex(tenantId, space, entry.dims);
    const rows = this.#all(tenantId, space);
    for (const row of rows) {
      const vector = asIndexed(this.settings(tenantId, space), row.vector, entry.dims);
      index.add(BigInt(row.seq), vector, 0);
    }
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

  /** The index of (tenant, model), loaded or built now (a build in progress is finished synchronously). */
  #load(tenantId: string, model: string, dims: number): Entry {
    const key = this.#key(tenantId, model);
    const cached = this.#entries.get(key) ?? this.#loadFile(tenantId, model, dims);
    if (cached) return cached;
    const build = this.#building.get(key);
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
    if (files && existsSync(files.index) && existsSync(files.meta)) {
      try {
        const meta = JSON.parse(readFileSync(files.meta, 'utf8')) as { generation: number; dims: number };
        if (meta.generation === generation && (dims === undefined || meta.dims === dims)) {
          const index = this.#newIndex(tenantId, model, meta.dims);
          index.load(files.index);
          const entry: Entry = {
            index,
            dims: meta.dims,
            generation,
            exact: this.#newExact(meta.dims),
            exactReady: false,
            source: 'file',
          };
          this.#entries.set(key, entry);
          this.#fillExact(tenantId, model, entry);
          return entry;
        }
      } catch {
        // A corrupt file is never trusted: fall through to a rebuild.
      }
    }
    return undefined;
  }

  /** Starts building the index of (tenant, model) from the store, one slice per turn of the event loop. */
  #startBuild(tenantId: string, model: string, dims: number): Build {
    const key = this.#key(tenantId, model);
    const page = this.#page(tenantId, model);
    const settings = this.settings(tenantId, model);
    let settle!: { resolve: () => void; reject: (error: unknown) => void };
    const done = new Promise<void>((resolve, reject) => (settle = { resolve, reject }));
    done.catch(() => {}); // a build nobody waits for may fail quietly
    const build: Build = {
      index: this.#newIndex(tenantId, model, dims),
      exact: this.#newExact(dims),
      dims,
      through: 0,
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
        const rows = page(build.through);
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
          build.through = rows[rows.length - 1]!.seq;
        }
        if (rows.length === vectorsPerSlice) return false;
        this.#building.delete(key);
        this.#entries.set(key, {
          index: build.index,
          dims,
          generation: this.#generation(tenantId, model),
          exact: build.exact,
          exactReady: true,
          source: 'store',
        });
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
    const entry: Entry = { index, dims, generation, exact: this.#newExact(dims), exactReady: true, source: 'store' };
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
      if (keys.length === batch) {
        flush();
        this.#enforceBudget(entry);
      }
    }
    flush();
    this.#entries.set(this.#key(tenantId, model), entry);
    this.#enforceBudget();
    return entry;
  }

  #save(tenantId: string, model: string, entry: Entry): void {
    const files = this.#files(tenantId, model);
    if (!files) return;
    mkdirSync(join(files.index, '..'), { recursive: true });
    entry.index.save(`${files.index}.tmp`);
    renameSync(`${files.index}.tmp`, files.index);
    writeFileSync(
      files.meta,
      JSON.stringify({ generation: entry.generation, dims: entry.dims, count: entry.index.size() }),
    );
  }
}
