import { dotProduct, squaredDistance } from './exact-vectors.js';
import type { Entry, IndexRegistry } from './index-registry.js';
import { Nearest } from './index-tail.js';
import { asIndexed } from './usearch-index.js';

// The search entry of one index: the HNSW graph's approximate candidates and the exact tail, on one scale.

/** Keys best first, with their distances (smaller is nearer). */
export interface Candidates {
  readonly keys: number[];
  readonly distances: number[];
}

/** One search of one index: where it is (registry, tenant, space and its loaded entry) and what is asked. */
export interface IndexSearch {
  readonly registry: IndexRegistry;
  readonly tenantId: string;
  /** The vector space: a model's name, or a collection's client vector space. */
  readonly space: string;
  readonly entry: Entry;
  /** The query vector, of the entry's dimensions. */
  readonly query: Float32Array;
  /** How many candidates at most. */
  readonly k: number;
  /** Only chunks of these documents (by sequence), when given: a filtered search's allowed set. */
  readonly docs?: ReadonlySet<number> | undefined;
}

/**
 * Nearest chunks (or client vectors) of an index in memory, best first: the k nearest of the HNSW graph's
 * approximate k best (`graph`, searched by the caller: see search-batches.ts) and the tail's exact k best (the
 * vectors written but not indexed yet, of documents in `docs` when given). So a document written a moment ago is
 * found as surely as if the graph held it.
 *
 * @example const graph = await batches.search(entry.index, query, 10);
 * searchIndex({ registry, tenantId, space: model, entry, query, k: 10 }, graph);
 */
export function searchIndex(search: IndexSearch, graph: Candidates): Candidates {
  const { entry, k } = search;
  const { keys, distances } = graph;
  if (entry.tail.size === 0) return { keys, distances };
  // The k nearest of graph and tail together, as one index would answer (a filtered search widens k until enough
  // pass, which is right only if the first k are the nearest k): the graph's candidates measured exactly like the
  // tail's, from the copies or else the store, never by the graph's own distance (a b1 graph's is a Hamming
  // count, on another scale than the tail's 1 − cosine).
  const nearest = new Nearest(Math.min(k, entry.index.size() + entry.tail.size));
  const exact = exactDistances(search, keys);
  keys.forEach((key, i) => nearest.offer(key, exact[i]!));
  const tail = searchTail({ ...search, k: Math.min(k, entry.tail.size) });
  tail.keys.forEach((key, i) => nearest.offer(key, tail.distances[i]!));
  return nearest.result();
}

/**
 * Exact distances of keys by the space's distance on float32, as the tail is measured: from the copies, the
 * keys they do not hold read from the store (NaN for a key the store no longer holds: never kept).
 */
function exactDistances(
  { registry, tenantId, space, entry, query }: Omit<IndexSearch, 'k' | 'docs'>,
  keys: readonly number[],
): number[] {
  const settings = registry.settings(tenantId, space);
  const euclidean = settings.distance === 'euclidean';
  const distances = keys.map((key) => entry.exact?.distance(key, query, euclidean ? 'l2sq' : 'dot') ?? NaN);
  const missing = keys.filter((_, i) => Number.isNaN(distances[i]));
  if (missing.length === 0) return distances;
  const stored = registry.store.byKey(tenantId, space, missing);
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
function searchTail({ registry, tenantId, space, entry, query, k, docs }: IndexSearch): Candidates {
  const nearest = new Nearest(k);
  const settings = registry.settings(tenantId, space);
  const euclidean = settings.distance === 'euclidean';
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
  for (const row of registry.store.after(tenantId, space, entry.through)) {
    if (!docs || docs.has(row.doc_seq)) nearest.offer(row.seq, distance(asIndexed(settings, row.vector, entry.dims)));
  }
  return nearest.result();
}
