import { inSlices } from '../in-slices.js';
import type { Entry, IndexRegistry } from './index-registry.js';
import { asIndexed } from './usearch-index.js';
import { shortTail, sliceBounds, sliceBudgetMs, tailPerSlice } from './vector-index-options.js';

// Moving an index's tail (vectors stored and acknowledged, searched exactly) into its HNSW graph: in the
// background, a slice per turn of the event loop, or now before a save.

/**
 * Adds up to `count` vectors of an index's tail to its graph (from the float32 copies, else the store); answers how
 * many it added.
 */
export function indexSome(
  registry: IndexRegistry,
  tenantId: string,
  space: string,
  entry: Entry,
  count: number,
): number {
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
      const settings = registry.settings(tenantId, space);
      const stored = registry.store.byKey(
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
  return keys.length;
}

/** Indexes the whole tail of an index now. */
export function drain(registry: IndexRegistry, tenantId: string, space: string, entry: Entry): void {
  while (entry.tail.size > 0) indexSome(registry, tenantId, space, entry, 4096);
}

/**
 * Before a save: a short tail (outside imports the background indexing keeps up) is indexed first, so the file is
 * current; a long one is not waited for (it would hold the thread for seconds): the file holds what the graph
 * holds, and the next load catches it up from the store. `budget.left` is what may still be indexed now, shared
 * by the saves of one call.
 */
export function settle(
  registry: IndexRegistry,
  tenantId: string,
  space: string,
  entry: Entry,
  budget = { left: shortTail },
): void {
  const size = entry.tail.size;
  if (size === 0 || size > budget.left) return;
  budget.left -= size;
  drain(registry, tenantId, space, entry);
}

/**
 * Moves tails into their indexes, one slice per turn of the event loop, unless an import holds indexing. Each slice
 * takes as many vectors as the last ones' insertion time says fit in `sliceBudgetMs`, per index (dimensions and
 * graph size set the cost).
 */
export function scheduleIndexing(registry: IndexRegistry): void {
  if (registry.indexing || registry.deferred > 0 || registry.closed) return;
  registry.indexing = true;
  inSlices(() => {
    if (registry.deferred === 0 && !registry.closed) {
      for (const [key, entry] of registry.entries) {
        if (entry.tail.size === 0) continue;
        const [tenantId, space] = registry.spaceOf(key);
        const started = performance.now();
        const added = indexSome(registry, tenantId, space, entry, sliceSize(entry));
        if (added > 0) entry.insertMs = (performance.now() - started) / added;
        return false;
      }
    }
    registry.indexing = false;
    return true;
  });
}

/** The vectors the next slice of an index takes: its last measured insertion time per vector into the budget. */
export function sliceSize(entry: Pick<Entry, 'insertMs'>): number {
  if (entry.insertMs === undefined) return tailPerSlice;
  const fit = Math.floor(sliceBudgetMs / Math.max(entry.insertMs, 1e-3));
  return Math.min(sliceBounds.max, Math.max(sliceBounds.min, fit));
}
