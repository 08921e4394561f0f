import { existsSync, statSync } from 'node:fs';
import { indexBytesPerVector, parseSpaceKey } from '../collections/vector-space.js';
import type { IndexRegistry, OpenedHow } from './index-registry.js';

// What the indexes show of themselves: collection info, /readyz and /metrics.

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

/** An index loading or catching up, as /readyz shows it. */
export interface LoadingIndex {
  /** A model's name, or `collection` for a collection's vector (tenant data is not shown). */
  readonly space: string;
  readonly how: Exclude<OpenedHow, 'file'>;
  /** Vectors read from the store so far, of `total` to read. */
  readonly done: number;
  readonly total: number;
}

/** Counters since start, for /readyz and /metrics. */
export interface VectorCounters {
  readonly opened: Readonly<Record<OpenedHow, number>>;
  readonly checkpoints: number;
  readonly evictions: number;
  readonly unreadable: number;
}

/** State, size and memory of the index of a space, without loading it. */
export function statsOf(registry: IndexRegistry, tenantId: string, space: string, dims: number): IndexStats {
  const key = registry.key(tenantId, space);
  const entry = registry.entries.get(key);
  const settings = registry.settings(tenantId, space);
  const perVector = indexBytesPerVector(dims, settings.storage, settings.hnsw.m);
  const files = registry.files(tenantId, space);
  const fileBytes = files && existsSync(files.index) ? statSync(files.index).size : 0;
  if (!entry) {
    return {
      state: registry.building.has(key) ? 'loading' : 'not loaded',
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

/** The indexes loading or catching up now, with their progress. */
export function loadingOf(registry: IndexRegistry): LoadingIndex[] {
  return [...registry.building.entries()].map(([key, build]) => {
    const [, space] = registry.spaceOf(key);
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
export function countersOf(registry: IndexRegistry): VectorCounters {
  return {
    opened: { ...registry.opened },
    checkpoints: registry.checkpoints,
    evictions: registry.evictions,
    unreadable: registry.unreadable,
  };
}
