import { exactSearch, MetricKind, type Matches } from 'usearch';
import { Nearest } from '../vectors/index-tail.js';
import type { ExactVectors } from '../vectors/exact-vectors.js';
import type { AllowedSet } from './allowed-sets.js';
import type { Hit } from './hit.js';
import type { Scope } from './scope.js';
import type { SearchCore } from './search-core.js';
import { rank, scoreKeys, unit, verify } from './vector-hits.js';
import type { SpaceSource, VectorQuery } from './vector-query.js';

/** A space searched through the documents a filter allows, with what its search needs. */
export interface AllowedSpace {
  /** The space's key: a model, or a collection's own vector. */
  readonly space: string;
  readonly dims: number;
  readonly size: number;
  readonly ef: number;
  readonly source: SpaceSource;
  readonly allowed: AllowedSet;
  readonly copies: ExactVectors;
}

/** usearch's metric for an exact scan: the same order as the similarity (stored vectors are unit length for cosine). */
const metricOf = { cosine: MetricKind.Cos, euclidean: MetricKind.L2sq, dot: MetricKind.IP } as const;

/**
 * An exact scan of the allowed vectors, gathered in one matrix and compared by usearch (SIMD, a few times faster
 * than a loop in JavaScript): the nearest few are scored, then more while the access rule leaves too few.
 */
export function allowedScan(
  core: SearchCore,
  scope: Scope,
  q: VectorQuery,
  query: Float32Array,
  s: AllowedSpace,
): { hits: Hit[]; exact: boolean; dropped: number } {
  const { keys, matrix } = s.allowed.vectors(s.space, s.copies);
  if (keys.length === 0) return { hits: [], exact: true, dropped: 0 };
  // usearch reads a typed array from the start of its buffer, ignoring a view's offset (a model's query vector may
  // be a view into its batch).
  const target = query.byteOffset === 0 ? query : query.slice();
  for (let count = Math.min(keys.length, Math.max(64, q.limit * 8)); ; count = Math.min(keys.length, count * 4)) {
    const found = exactSearch(matrix, target, s.dims, count, metricOf[q.method], 1) as Matches;
    const nearest = Array.from(found.keys, (row) => keys[Number(row)]!);
    const ranked = verify(core, scope, q, scoreKeys(q, query, nearest, s.copies, null));
    if (ranked.hits.length >= q.limit || count === keys.length || ranked.tail < q.threshold) {
      return { ...ranked, exact: true };
    }
  }
}

/**
 * An exact scan of a small space from its float32 copies: every vector's distance measured in place, the nearest
 * few scored and their rows read, then more while the access rule, filters or geo leave too few.
 */
export function copiesScan(
  core: SearchCore,
  scope: Scope,
  q: VectorQuery,
  query: Float32Array,
  copies: ExactVectors,
): { hits: Hit[]; dropped: number } {
  const keys = [...copies.keys()];
  const metric = q.method === 'euclidean' ? 'l2sq' : 'dot';
  const distances = keys.map((key) => copies.distance(key, query, metric));
  for (let count = Math.min(keys.length, Math.max(64, q.limit * 8)); ; count = Math.min(keys.length, count * 4)) {
    const nearest = new Nearest(count);
    keys.forEach((key, i) => nearest.offer(key, distances[i]!));
    const ranked = verify(core, scope, q, scoreKeys(q, query, nearest.result().keys, copies, null));
    if (ranked.hits.length >= q.limit || count === keys.length || ranked.tail < q.threshold) return ranked;
  }
}

/**
 * An exact scan of a space from the store: every live vector of the tenant's space read from SQLite and scored,
 * with its document's row (used when the index's float32 copies are not in memory).
 */
export function exactScan(
  core: SearchCore,
  scope: Scope,
  q: VectorQuery,
  query: Float32Array,
  model: string,
  source: SpaceSource,
): { hits: Hit[]; dropped: number } {
  const client = source.client;
  const rows = core.rows.liveSpaceVectors(scope.viewer.tenantId, { client, model });
  const chunks = rows.map((r) => ({
    seq: r.seq,
    doc: r.doc_seq,
    vector: new Float32Array(r.vector.buffer, r.vector.byteOffset, r.vector.byteLength / 4),
  }));
  const { hits, dropped } = rank(core, scope, q, query, client ? unit(client, chunks) : chunks);
  return { hits, dropped };
}
