import { existsSync, statSync } from 'node:fs';
import type { Index } from 'usearch';
import { inSlices } from '../in-slices.js';
import { evict, loadFile, readSpaceFile } from './index-checkpoints.js';
import { readMeta } from './index-files.js';
import type { Build, Entry, IndexRegistry } from './index-registry.js';
import { asIndexed } from './usearch-index.js';
import { vectorsPerSlice } from './vector-index-options.js';

// An index brought into memory from the store: built from nothing or caught up from its last checkpoint, in the
// background (a slice per turn of the event loop, queries waiting) or at once.

/**
 * A new, empty index for the first vectors of a space (the write's own `count` are all the store holds, and
 * there is no file): they join its tail like any write's, with nothing to build from the store.
 */
export function first(
  registry: IndexRegistry,
  tenantId: string,
  space: string,
  dims: number | undefined,
  count: number,
): Entry | undefined {
  const files = registry.files(tenantId, space);
  if (dims === undefined || registry.closed || (files && existsSync(files.meta))) return undefined;
  if (registry.store.countAfter(tenantId, space, 0) !== count) return undefined;
  const entry = registry.entry(tenantId, space, {
    index: registry.newIndex(tenantId, space, dims),
    dims,
    generation: 0,
    // The empty graph reflects no write: a checkpoint before its tail is indexed is caught up from the store.
    indexedGeneration: 0,
    exact: registry.newExact(dims),
    exactReady: true,
    through: 0,
    dirty: 1,
    source: 'store',
  });
  registry.entries.set(registry.key(tenantId, space), entry);
  registry.opened.rebuild += 1;
  return entry;
}

/**
 * Starts catching up the last checkpoint of a space when its file can be replayed: it records `through`, its
 * generation is not ahead of the store's, and the removal log covers every write since. The keys removed since
 * are taken out now; the vectors added since are read in the background like a build's. Undefined when the file
 * cannot be replayed.
 */
export function startReplay(
  registry: IndexRegistry,
  tenantId: string,
  space: string,
  dims: number | undefined,
): Build | undefined {
  const files = registry.files(tenantId, space);
  if (!files || registry.closed) return undefined;
  const meta = readMeta(files.meta);
  if (!meta || meta.through === undefined || (dims !== undefined && meta.dims !== dims)) return undefined;
  if (
    meta.generation > registry.store.generation(tenantId, space) ||
    !registry.log.covers(tenantId, space, meta.generation)
  )
    return undefined;
  const index = readSpaceFile(registry, tenantId, space, meta);
  if (!index) return undefined;
  const removed = registry.log.since(tenantId, space, meta.generation);
  if (removed.length > 0) index.remove(BigUint64Array.from(removed, (k) => BigInt(k)));
  return startBuild(registry, tenantId, space, meta.dims, { index, through: meta.through, removed: removed.length });
}

/**
 * Starts building the index of a space from the store, one slice per turn of the event loop: from nothing, or
 * (`from`) from a checkpoint whose later removals are already applied.
 */
export function startBuild(
  registry: IndexRegistry,
  tenantId: string,
  space: string,
  dims: number,
  from?: { index: Index; through: number; removed: number },
): Build {
  const key = registry.key(tenantId, space);
  const page = registry.store.page(tenantId, space);
  const settings = registry.settings(tenantId, space);
  let settle!: { resolve: () => void; reject: (error: unknown) => void };
  const done = new Promise<void>((resolve, reject) => (settle = { resolve, reject }));
  done.catch(() => {}); // a build nobody waits for may fail quietly
  const build: Build = {
    index: from?.index ?? registry.newIndex(tenantId, space, dims),
    // A replay fills the copies of the whole index afterwards (the file holds none).
    exact: from ? null : registry.newExact(dims),
    dims,
    through: from?.through ?? 0,
    how: from ? 'replay' : 'rebuild',
    added: 0,
    total: registry.store.countAfter(tenantId, space, from?.through ?? 0),
    done,
    finish: () => {
      while (registry.building.get(key) === build && !slice()) {
        // run the remaining slices now
      }
    },
    resolve: () => settle.resolve(),
    fail: (error) => settle.reject(error),
  };
  /** Adds one slice; true when the build is complete (or abandoned). */
  const slice = (): boolean => {
    if (registry.building.get(key) !== build || registry.closed) return true;
    try {
      const read = page(build.through);
      // Catching up onto an index saved after its metadata (a crash between the two renames): skip what it holds.
      const held = from && read.length > 0 ? build.index.contains(BigUint64Array.from(read, (r) => BigInt(r.seq))) : [];
      const rows = from ? read.filter((_, i) => !(held as boolean[])[i]) : read;
      if (rows.length > 0) {
        const matrix = new Float32Array(rows.length * dims);
        rows.forEach((row, i) => {
          const vector = asIndexed(settings, row.vector, dims);
          matrix.set(vector, i * dims);
          build.exact?.set(row.seq, row.doc_seq, vector);
        });
        registry.enforceCopiesBudget();
        build.index.add(
          BigUint64Array.from(rows, (row) => BigInt(row.seq)),
          matrix,
          0,
        );
        build.added += rows.length;
      }
      if (read.length > 0) build.through = read[read.length - 1]!.seq;
      if (read.length === vectorsPerSlice) return false;
      registry.building.delete(key);
      const generation = registry.store.generation(tenantId, space);
      const entry = registry.entry(tenantId, space, {
        index: build.index,
        dims,
        generation,
        indexedGeneration: generation,
        exact: from ? registry.newExact(dims) : build.exact, // null: dropped over the budget during the build
        exactReady: !from && build.exact !== null,
        through: build.through,
        dirty: Math.max(1, build.added + (from?.removed ?? 0)),
        source: from ? 'file' : 'store',
      });
      registry.entries.set(key, entry);
      registry.opened[build.how] += 1;
      registry.touch(entry);
      if (from) registry.fillCopies(tenantId, space, entry);
      evict(registry, key);
      settle.resolve();
    } catch (error) {
      registry.building.delete(key);
      settle.reject(error);
    }
    return true;
  };
  registry.building.set(key, build);
  inSlices(slice);
  return build;
}

/** Builds the index of a space from the store now, holding the thread (a rebuild, or a query that cannot wait). */
export function build(registry: IndexRegistry, tenantId: string, space: string, dims: number): Entry {
  const generation = registry.store.generation(tenantId, space);
  const index = registry.newIndex(tenantId, space, dims);
  const entry = registry.entry(tenantId, space, {
    index,
    dims,
    generation,
    indexedGeneration: generation,
    exact: registry.newExact(dims),
    exactReady: true,
    through: 0,
    dirty: 1,
    source: 'store',
  });
  const settings = registry.settings(tenantId, space);
  const rows = registry.store.all(tenantId, space);
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
      registry.enforceCopiesBudget(entry);
    }
  }
  flush();
  const key = registry.key(tenantId, space);
  registry.entries.set(key, entry);
  registry.opened.rebuild += 1;
  registry.touch(entry);
  registry.enforceCopiesBudget();
  evict(registry, key);
  return entry;
}

/** An in-memory index copied into a new one with the space's current settings (memory-only mode). */
export function reopen(registry: IndexRegistry, tenantId: string, space: string, entry: Entry): Index {
  const index = registry.newIndex(tenantId, space, entry.dims);
  const rows = registry.store.all(tenantId, space);
  for (const row of rows) {
    const vector = asIndexed(registry.settings(tenantId, space), row.vector, entry.dims);
    index.add(BigInt(row.seq), vector, 0);
    if (row.seq > entry.through) entry.through = row.seq;
  }
  entry.tail.clear(); // every stored vector is in the new graph
  entry.indexedGeneration = entry.generation;
  return index;
}

/**
 * Starts loading, in the background, the indexes that have files (most recently saved first), until the index
 * memory budget is reached.
 */
export function warmUp(registry: IndexRegistry): void {
  if (!registry.options.dir) return;
  const spaces = registry.store
    .spaces()
    .flatMap(({ tenantId, space }) => {
      const files = registry.files(tenantId, space)!;
      const meta = readMeta(files.meta);
      return meta && existsSync(files.index) ? [{ tenantId, space, meta, time: statSync(files.index).mtimeMs }] : [];
    })
    .sort((a, b) => b.time - a.time);
  const budget = registry.options.indexMemoryBytes ?? Infinity;
  inSlices(() => {
    const next = spaces.shift();
    if (!next || registry.closed || registry.memory().indexBytes >= budget) return true;
    const { tenantId, space, meta } = next;
    const key = registry.key(tenantId, space);
    if (!registry.entries.has(key) && !registry.building.has(key) && !loadFile(registry, tenantId, space, meta.dims)) {
      if (!startReplay(registry, tenantId, space, meta.dims)) startBuild(registry, tenantId, space, meta.dims);
    }
    return spaces.length === 0;
  });
}
