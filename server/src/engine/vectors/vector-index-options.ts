import type { Clock } from '../clock.js';
import type { SpaceSettings } from '../collections/vector-space.js';

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
  /**
   * Vector queries that reach one index of at least `batchMinVectors` in the same turn of the event loop are searched
   * together on up to `threads` threads (0: one per CPU core; see search-batches.ts). Default: one per core, from
   * 250,000 vectors.
   */
  readonly search?: { readonly threads: number; readonly batchMinVectors: number };
}

export const defaultVectorIndexOptions: Omit<VectorIndexOptions, 'dir'> = {
  connectivity: 16,
  expansionAdd: 200,
  expansionSearch: 100,
  exactVectorBytes: 1024 * 1024 * 1024,
};

export const defaultCheckpoint = { writes: 10_000, intervalMs: 60_000 };

/** Vectors added per slice of a background build: tens of milliseconds, so other requests keep being served. */
export const vectorsPerSlice = 512;
/**
 * Vectors moved from a tail into its index in the first slice of background indexing (usearch's threads share the
 * batch), and the least a write past `maxIndexLag` takes. Later slices are sized by `sliceBudgetMs`.
 */
export const tailPerSlice = 256;
/**
 * Milliseconds of HNSW insertion one slice of background indexing aims at: a request arriving meanwhile waits about
 * this long at most. Insertion slows as the graph grows (about 8,000 vectors/s at 512 dimensions in a small graph,
 * a tenth of that at a million), so a fixed count would hold the thread ten times longer at 1M.
 */
export const sliceBudgetMs = 25;
/** The bounds of a slice sized by `sliceBudgetMs`. */
export const sliceBounds = { min: 8, max: 2048 } as const;
export const defaultMaxIndexLag = 1_000_000;
/**
 * A tail indexed at once before a save (about half a second of HNSW insertion at 512 dimensions); also what one
 * saveAll() or checkpoint() indexes at most over all indexes, so a snapshot or a shutdown never holds the thread
 * for the whole lag of every index (up to `maxIndexLag` each).
 */
export const shortTail = 4096;
