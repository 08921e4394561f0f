import { linkSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Index } from 'usearch';
import type { Entry, IndexRegistry } from './index-registry.js';

/**
 * A saved index file that is exactly the graph in memory, for the search workers (issue #40): a hard link to the
 * file the checkpoint just wrote, under a name no later save replaces, so a worker that memory-maps it (usearch
 * `view()`) reads the very graph the main thread searches. It stays that graph while the entry's index object, its
 * generation and its empty tail are those it was published with: every change of the graph either bumps the
 * generation (a write's removals, a write whose keys go through the tail) or replaces the index object (a rebuild,
 * a reload), and a graph catching up from a tail is not published at all.
 */
export interface SearchView {
  /** The hard link a worker maps. */
  readonly path: string;
  /** The store's generation of the space the graph reflects (a worker checks its own read against it). */
  readonly generation: number;
  readonly dims: number;
  /** Vectors in the graph. */
  readonly size: number;
  /** Names the file: a worker maps a new serial once. */
  readonly serial: number;
  readonly index: Index;
}

let serials = 0;

/** The folder of the links, beside the indexes' (never inside it: snapshots copy that one). */
export const viewsDir = (indexDir: string): string => join(indexDir, '..', 'search-views');

/** Removes every link a previous run left (workers of this run map only links this run made). */
export function clearViews(indexDir: string | null): void {
  if (indexDir) rmSync(viewsDir(indexDir), { recursive: true, force: true });
}

/**
 * After a save of `file`: links it as the space's view when the graph reflects everything written (an empty tail),
 * replacing the previous view (its link removed: a worker that mapped it keeps its pages).
 */
export function publishView(registry: IndexRegistry, key: string, file: string, entry: Entry): void {
  dropView(registry, key);
  const dir = registry.options.dir;
  if (!dir || entry.tail.size > 0) return;
  serials += 1;
  const path = join(viewsDir(dir), `${serials}.usearch`);
  try {
    mkdirSync(viewsDir(dir), { recursive: true });
    linkSync(file, path);
  } catch {
    return; // no hard links here: searches stay on the main thread
  }
  const view = {
    path,
    generation: entry.indexedGeneration,
    dims: entry.dims,
    size: entry.index.size(),
    serial: serials,
  };
  registry.views.set(key, { ...view, index: entry.index });
}

/** Forgets a space's view and removes its link. */
export function dropView(registry: IndexRegistry, key: string): void {
  const view = registry.views.get(key);
  if (!view) return;
  registry.views.delete(key);
  rmSync(view.path, { force: true });
}

/** The space's view when it is still exactly the graph in memory (see SearchView); undefined otherwise. */
export function currentView(registry: IndexRegistry, key: string): SearchView | undefined {
  const view = registry.views.get(key);
  const entry = registry.entries.get(key);
  if (!view || !entry || registry.building.has(key)) return undefined;
  const same =
    entry.index === view.index &&
    entry.tail.size === 0 &&
    entry.generation === view.generation &&
    entry.indexedGeneration === view.generation &&
    entry.index.size() === view.size;
  return same ? view : undefined;
}
