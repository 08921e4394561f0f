import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Index, MetricKind, ScalarKind } from 'usearch';
import type { Db } from '../storage/database.js';

export interface VectorIndexOptions {
  /** Folder for index files, or null to keep indexes in memory only (rebuilt from the store on start). */
  readonly dir: string | null;
  readonly connectivity: number;
  readonly expansionAdd: number;
  readonly expansionSearch: number;
}

export const defaultVectorIndexOptions: Omit<VectorIndexOptions, 'dir'> = {
  connectivity: 16,
  expansionAdd: 200,
  expansionSearch: 100,
};

interface Entry {
  readonly index: Index;
  readonly dims: number;
  generation: number;
}

const alive = 'd.deleted_at IS NULL AND d.superseded = 0';

/**
 * HNSW indexes (usearch, f16, cosine over normalised vectors), one per tenant and embedding model. They are
 * derived data: the store keeps every vector as float32, and a `generation` counter per (tenant, model) that every
 * write transaction bumps. An index file is trusted only when its recorded generation equals the store's;
 * otherwise (a crash, a copy, a corrupt file) it is rebuilt from the store.
 */
export class VectorIndexes {
  readonly #db: Db;
  readonly #options: VectorIndexOptions;
  readonly #entries = new Map<string, Entry>();

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
    added: readonly { key: number; vector: Float32Array }[],
    removed: readonly number[],
  ): void {
    const entry = this.#entries.get(this.#key(tenantId, model));
    if (!entry) return; // not loaded: the next use loads or rebuilds it at the committed generation
    if (removed.length > 0) entry.index.remove(BigUint64Array.from(removed, (k) => BigInt(k)));
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

  /** Number of vectors in the index of (tenant, model). */
  size(tenantId: string, model: string, dims: number): number {
    return this.#load(tenantId, model, dims).index.size();
  }

  /** Rebuilds the index of (tenant, model) from the store and saves it; returns the number of vectors. */
  rebuild(tenantId: string, model: string, dims: number): number {
    this.#entries.delete(this.#key(tenantId, model));
    const entry = this.#build(tenantId, model, dims);
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

  #newIndex(dims: number): Index {
    return new Index({
      dimensions: dims,
      metric: MetricKind.Cos,
      quantization: ScalarKind.F16,
      connectivity: this.#options.connectivity,
      expansion_add: this.#options.expansionAdd,
      expansion_search: this.#options.expansionSearch,
      multi: false,
    });
  }

  #load(tenantId: string, model: string, dims: number): Entry {
    const key = this.#key(tenantId, model);
    const cached = this.#entries.get(key);
    if (cached) return cached;
    const generation = this.#generation(tenantId, model);
    const files = this.#files(tenantId, model);
    if (files && existsSync(files.index) && existsSync(files.meta)) {
      try {
        const meta = JSON.parse(readFileSync(files.meta, 'utf8')) as { generation: number; dims: number };
        if (meta.generation === generation && meta.dims === dims) {
          const index = this.#newIndex(dims);
          index.load(files.index);
          const entry: Entry = { index, dims, generation };
          this.#entries.set(key, entry);
          return entry;
        }
      } catch {
        // A corrupt file is never trusted: fall through to a rebuild.
      }
    }
    return this.#build(tenantId, model, dims);
  }

  #build(tenantId: string, model: string, dims: number): Entry {
    const generation = this.#generation(tenantId, model);
    const index = this.#newIndex(dims);
    const rows = this.#db
      .prepare(
        `SELECT c.seq, c.vector FROM chunks c JOIN documents d ON d.seq = c.doc_seq
         WHERE c.tenant_id = ? AND c.model = ? AND c.vector IS NOT NULL AND ${alive}`,
      )
      .iterate(tenantId, model) as IterableIterator<{ seq: number; vector: Buffer }>;
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
      matrix.set(new Float32Array(row.vector.buffer, row.vector.byteOffset, dims), keys.length * dims);
      keys.push(BigInt(row.seq));
      if (keys.length === batch) flush();
    }
    flush();
    const entry: Entry = { index, dims, generation };
    this.#entries.set(this.#key(tenantId, model), entry);
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
