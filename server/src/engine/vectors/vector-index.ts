import { rmSync } from 'node:fs';
import { createError } from '@godb/contract';
import type { Db } from '../storage/database.js';
import type { SpaceSettings } from '../collections/vector-space.js';
import type { ExactVectors } from './exact-vectors.js';
import { build, first, reopen, startBuild, startReplay, warmUp } from './index-builds.js';
import { checkpoint, evict, loadFile, save, saveAll } from './index-checkpoints.js';
import { IndexRegistry, type Entry, type VectorMemory } from './index-registry.js';
import { searchIndex, type Candidates } from './index-search.js';
import {
  countersOf,
  loadingOf,
  statsOf,
  type IndexStats,
  type LoadingIndex,
  type VectorCounters,
} from './index-stats.js';
import { SearchBatches } from './search-batches.js';
import { currentView, dropView, type SearchView } from './search-views.js';
import { indexSome, scheduleIndexing } from './tail-indexing.js';
import { asIndexed, readIndex } from './usearch-index.js';
import { defaultMaxIndexLag, tailPerSlice, type VectorIndexOptions } from './vector-index-options.js';

/** A chunk as the index and its exact copies hold it. */
export interface IndexedChunk {
  readonly key: number;
  readonly doc: number;
  readonly vector: Float32Array;
}

/**
 * HNSW indexes (usearch), one per tenant and vector space (an embedding model, or a collection's own vector). They
 * are derived data: the store keeps every vector as float32, and a `generation` counter per (tenant, space) that
 * every write transaction bumps. This class is their one door; the work lives beside it, a file per concept:
 *
 * - `index-registry.ts`: the indexes in memory and being built, their memory and the float32 copies' budget;
 * - `index-builds.ts`: an index file older than the store's generation (a crash after its last checkpoint, or a
 *   save that did not wait for a long tail) is loaded and caught up: the keys the removal log holds after its
 *   generation are taken out, and the live vectors beyond its `through` are added from the store (vector seqs only
 *   grow). A file that cannot be replayed (no `through`, the log pruned past it, corrupt) is rebuilt from the
 *   store. Both run in the background, in slices between which the event loop serves other requests, while
 *   vector queries for the index wait (ready(), bounded by `wait`). Writes during a build remove what the build
 *   already holds; vectors it has not reached yet it reads itself;
 * - `index-checkpoints.ts`: files loaded as they are when their generation equals the store's; saved (after N
 *   changed vectors or T ms, before a snapshot, on shutdown, on eviction) atomically, pruning the removal log;
 *   the least recently used indexes evicted past `indexMemoryBytes`;
 * - `tail-indexing.ts`: writes are answered before HNSW insertion; their vectors wait in the index's tail;
 * - `index-search.ts`: the graph's candidates and the tail's, on one scale; `search-batches.ts`: the graph
 *   searches of concurrent queries, together on several threads when the index is large;
 * - `index-stats.ts`, `usearch-index.ts`, `space-vectors.ts` (every SQL statement), `vector-index-options.ts`.
 */
export class VectorIndexes {
  readonly #registry: IndexRegistry;
  readonly #batches: SearchBatches;

  constructor(db: Db, options: VectorIndexOptions) {
    this.#registry = new IndexRegistry(db, options);
    this.#batches = new SearchBatches(options.search?.threads, options.search?.batchMinVectors);
  }

  /**
   * Bumps and returns the generation of (tenant, model), logging the keys the write takes out of it. Call inside
   * the write transaction.
   */
  bumpGeneration(tenantId: string, model: string, removed: readonly number[] = []): number {
    const registry = this.#registry;
    const generation = registry.store.bumpGeneration(tenantId, model);
    if (registry.options.dir) registry.log.record(tenantId, model, generation, removed);
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
    const registry = this.#registry;
    const settings = registry.settings(tenantId, model);
    const added = given.map((a) => ({ ...a, vector: asIndexed(settings, a.vector, a.vector.length) }));
    const key = registry.key(tenantId, model);
    const running = registry.building.get(key);
    if (running) {
      const held = removed.filter((k) => k <= running.through);
      if (held.length > 0) running.index.remove(BigUint64Array.from(held, (k) => BigInt(k)));
      for (const k of held) running.exact?.delete(k);
      return; // added chunks lie beyond the build's position: it reads them from the store
    }
    // Not in memory (no query since the start, or evicted): its file, if it was current just before this write;
    // else its last checkpoint caught up in the background (this write included), else a background build from
    // the store. Left as is, the file would be stale after the write, and the next query would rebuild the index.
    const dims = added[0]?.vector.length;
    const entry =
      registry.entries.get(key) ??
      loadFile(registry, tenantId, model, dims, generation - 1) ??
      first(registry, tenantId, model, dims, added.length);
    if (!entry) {
      if (!startReplay(registry, tenantId, model, dims) && dims !== undefined)
        startBuild(registry, tenantId, model, dims);
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
    registry.enforceCopiesBudget();
    // Added vectors join the tail: searched exactly at once, moved into the graph in the background, so the write
    // (durable already) is answered without waiting for HNSW insertion.
    entry.tail.push(
      added.map((a) => a.key),
      generation,
    );
    entry.generation = generation;
    if (entry.tail.size === 0) entry.indexedGeneration = generation;
    entry.dirty += removed.length;
    registry.touch(entry);
    // Beyond the lag allowed, the write waits for the index to take the excess (searching the tail costs more
    // the longer it is).
    const lag = registry.options.maxIndexLag ?? defaultMaxIndexLag;
    while (entry.tail.size > lag)
      indexSome(registry, tenantId, model, entry, Math.max(tailPerSlice, entry.tail.size - lag));
    scheduleIndexing(registry);
    evict(registry, key);
  }

  /**
   * Holds background indexing while a bulk import writes (its writes are answered sooner; searches scan the tail
   * meanwhile); the returned function releases the hold, and indexing resumes once no import holds it.
   */
  deferIndexing(): () => void {
    const registry = this.#registry;
    registry.deferred += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      registry.deferred -= 1;
      scheduleIndexing(registry);
    };
  }

  /** Vectors stored but not in the HNSW graph yet, over every index in memory. */
  lag(): number {
    let lag = 0;
    for (const entry of this.#registry.entries.values()) lag += entry.tail.size;
    return lag;
  }

  /**
   * Nearest chunks (or client vectors), best first: the k nearest of the HNSW graph's approximate k best and the
   * tail's exact k best (the vectors written but not indexed yet, of documents in `docs` when given). So a document
   * written a moment ago is found as surely as if the graph held it; callers rescore every key exactly.
   */
  async search(
    tenantId: string,
    model: string,
    dims: number,
    query: Float32Array,
    k: number,
    docs?: ReadonlySet<number>,
  ): Promise<Candidates> {
    const entry = this.#load(tenantId, model, dims);
    this.#registry.touch(entry);
    // A large index: searched with the other queries that reach it in this turn of the loop (SEARCH_THREADS).
    const graph = await this.#batches.search(entry.index, query, k);
    return searchIndex({ registry: this.#registry, tenantId, space: model, entry, query, k, docs }, graph);
  }

  /**
   * The saved file that is exactly the graph of (tenant, space) in memory now, with nothing waiting in its tail:
   * what a search worker may map and search instead of this thread (see search-views.ts); undefined otherwise.
   */
  searchView(tenantId: string, space: string): Omit<SearchView, 'index'> | undefined {
    const view = currentView(this.#registry, this.#registry.key(tenantId, space));
    if (!view) return undefined;
    const { index: _index, ...rest } = view;
    return rest;
  }

  /** The float32 copies of the index of (tenant, model), when loaded and complete; null otherwise. */
  exactVectors(tenantId: string, model: string): ExactVectors | null {
    const entry = this.#registry.entries.get(this.#registry.key(tenantId, model));
    return entry?.exactReady ? entry.exact : null;
  }

  /**
   * Resolves once the index of (tenant, model) is in memory: loaded from its file when that is current, else its
   * last checkpoint caught up, else built from the store, in the background (one build however many callers
   * wait). With `wait` set, a caller waits at most that long, then gets 503 INDEX_LOADING with the progress.
   */
  async ready(tenantId: string, model: string, dims: number): Promise<void> {
    const registry = this.#registry;
    const key = registry.key(tenantId, model);
    const entry = registry.entries.get(key) ?? loadFile(registry, tenantId, model, dims);
    if (entry) {
      registry.touch(entry);
      return;
    }
    if (registry.closed) throw createError('SHUTTING_DOWN', { reason: 'the vector index was not loaded' });
    const running =
      registry.building.get(key) ??
      startReplay(registry, tenantId, model, dims) ??
      startBuild(registry, tenantId, model, dims);
    const wait = registry.options.wait;
    if (!wait) return running.done;
    let settled = false;
    await Promise.race([
      running.done.finally(() => (settled = true)),
      wait().then(() => {
        if (settled) return;
        throw createError('INDEX_LOADING', {
          how: running.how === 'replay' ? 'catching up from its last checkpoint' : 'being rebuilt from the store',
          done: running.added,
          total: running.total,
        });
      }),
    ]);
  }

  /** Stops builds in progress (the store is closing); their waiters get an error. */
  close(): void {
    const registry = this.#registry;
    registry.closed = true;
    for (const running of registry.building.values())
      running.fail(createError('SHUTTING_DOWN', { reason: 'the vector index was still loading' }));
    registry.building.clear();
  }

  /** Number of vectors in the index of (tenant, model): in its graph and in its tail. */
  size(tenantId: string, model: string, dims: number): number {
    const entry = this.#load(tenantId, model, dims);
    return entry.index.size() + entry.tail.size;
  }

  /** Rebuilds the index of (tenant, model) from the store and saves it; returns the number of vectors. */
  rebuild(tenantId: string, model: string, dims: number): number {
    const registry = this.#registry;
    const key = registry.key(tenantId, model);
    const running = registry.building.get(key); // replaced: its waiters get this index
    registry.entries.delete(key);
    registry.building.delete(key);
    let entry: Entry;
    try {
      entry = build(registry, tenantId, model, dims);
    } catch (error) {
      running?.fail(error);
      throw error;
    }
    running?.resolve();
    save(registry, tenantId, model, entry);
    return entry.index.size();
  }

  /**
   * Saves every loaded index that changed since its file was written (on shutdown, before a snapshot), indexing
   * short tails first (a few thousand vectors in all); a longer tail's graph is saved as it is and caught up from
   * the store on the next load, so the thread is never held for the whole lag (see saveAll in index-checkpoints).
   */
  saveAll(): void {
    saveAll(this.#registry);
  }

  /**
   * Saves the indexes whose checkpoint is due: `checkpoint.writes` vectors changed since their last save, or any
   * change `checkpoint.intervalMs` after it. Call it often (the server does every second): it costs nothing when
   * nothing is due. A save holds the thread while usearch writes the file. Returns the number saved.
   */
  checkpoint(): number {
    return checkpoint(this.#registry);
  }

  /**
   * Starts loading, in the background, the indexes that have files (most recently saved first), until the index
   * memory budget is reached: after a restart vector queries find them ready, or catching up, rather than starting
   * the work on their first query.
   */
  warmUp(): void {
    warmUp(this.#registry);
  }

  /** The indexes loading or catching up now, with their progress. */
  loading(): LoadingIndex[] {
    return loadingOf(this.#registry);
  }

  /** How the indexes came into memory since start, checkpoints written and evictions. */
  counters(): VectorCounters {
    return countersOf(this.#registry);
  }

  /** Memory held by the indexes (estimated from their sizes) and by their float32 copies, with the budgets. */
  memory(): VectorMemory {
    return this.#registry.memory();
  }

  /** The settings of a space: a model's, or a collection vector's. */
  settings(tenantId: string, space: string): SpaceSettings {
    return this.#registry.settings(tenantId, space);
  }

  /** State, size and memory of the index of a space, without loading it. */
  stats(tenantId: string, space: string, dims: number): IndexStats {
    return statsOf(this.#registry, tenantId, space, dims);
  }

  /**
   * Opens the in-memory index of a space again with the space's current settings (ef_search changes without a
   * rebuild: usearch takes it only when an index is made, so the graph is saved and loaded into a new one). The rest
   * of the entry stays: its float32 copies, which at a million vectors are 2 GB read from the store again when the
   * entry is forgotten (searches rescored from the store meanwhile, for minutes), and its tail.
   */
  reload(tenantId: string, space: string): void {
    const registry = this.#registry;
    const key = registry.key(tenantId, space);
    const entry = registry.entries.get(key);
    if (!entry) return;
    const files = registry.files(tenantId, space);
    if (!files) {
      entry.index = reopen(registry, tenantId, space, entry);
      return;
    }
    save(registry, tenantId, space, entry);
    // Just written (and its checksum taken as it was): not read back a second time for it.
    const index = readIndex(files.index, () => registry.newIndex(tenantId, space, entry.dims));
    if (index) entry.index = index;
    else registry.entries.delete(key); // the file cannot be read back: the next query loads or rebuilds it
  }

  /**
   * Forgets every index of a tenant without saving it: its rows were replaced (a tenant restore), so the next
   * query loads the restored files, or rebuilds from the restored rows when they are not current. Builds in
   * progress stop, and their waiters go on to that load.
   */
  forgetTenant(tenantId: string): void {
    const registry = this.#registry;
    for (const map of [registry.entries, registry.building] as Map<string, unknown>[]) {
      for (const key of [...map.keys()]) {
        if (registry.spaceOf(key)[0] !== tenantId) continue;
        registry.building.get(key)?.resolve();
        dropView(registry, key);
        map.delete(key);
      }
    }
    // Its removal log described the replaced rows: from now on only a file at the restored generation is trusted
    // (an older one is rebuilt, never replayed with removals that no longer apply).
    registry.log.forgetTenant(tenantId);
  }

  /** Removes a space's index: in memory, its files, its removal log and its generation (its collection or vector is gone). */
  drop(tenantId: string, space: string): void {
    const registry = this.#registry;
    const key = registry.key(tenantId, space);
    registry.building.get(key)?.resolve();
    registry.building.delete(key);
    registry.entries.delete(key);
    dropView(registry, key);
    const files = registry.files(tenantId, space);
    if (files) for (const file of [files.index, files.meta]) rmSync(file, { force: true });
    registry.log.drop(tenantId, space);
    registry.store.dropGeneration(tenantId, space);
  }

  /** The index of (tenant, model), loaded or built now (a build or catch-up in progress is finished synchronously). */
  #load(tenantId: string, model: string, dims: number): Entry {
    const registry = this.#registry;
    const key = registry.key(tenantId, model);
    const cached = registry.entries.get(key) ?? loadFile(registry, tenantId, model, dims);
    if (cached) return cached;
    const running = registry.building.get(key) ?? startReplay(registry, tenantId, model, dims);
    running?.finish();
    return registry.entries.get(key) ?? build(registry, tenantId, model, dims);
  }
}
