import { maxSearchLimit } from '@godb/contract';
import { isUnnamed, unnamedVector } from './collection-config.js';
import { badRequest, unsupported } from './envelope.js';
import type { Call } from './godb-calls.js';
import { pointIdOf, type PointId } from './point-ids.js';
import { qdrantScores } from './qdrant-scores.js';
import { exactFilter } from './filter-prefilter.js';
import {
  documentsByIds,
  effectiveFilter,
  matchingDocuments,
  readyIndexes,
  selectPayload,
  selectVectors,
  unit,
  type CollectionView,
} from './point-reads.js';

export interface NearestQuery {
  readonly vector: number[];
  /** The collection's vector to search (Qdrant's `using`, or the name of a named query vector). */
  readonly using?: unknown;
  readonly filter?: unknown;
  readonly limit: number;
  readonly offset: number;
  readonly scoreThreshold?: number;
  readonly withPayload: unknown;
  readonly withVector: unknown;
  /** Documents left out of the answer (the examples of a recommendation). */
  readonly exclude?: readonly string[];
}

export interface ScoredPoint {
  id: PointId;
  version: number;
  score: number;
  payload: Record<string, unknown> | null;
  vector: unknown;
}

/** The GoDB vector name a query searches, as Qdrant resolves it. */
export function vectorNameOf(collection: CollectionView, using: unknown): string {
  if (using === undefined || using === null || using === '') {
    if (isUnnamed(collection.vectors)) return unnamedVector;
    throw badRequest('this collection has named vectors: say which with `using` (or {name, vector})');
  }
  if (typeof using !== 'string' || !(using in collection.vectors)) {
    throw badRequest(`Wrong input: Not existing vector name error: ${String(using)}`);
  }
  return using;
}

/** The own vectors of these documents by document id, read only when the request asks for vectors (`with_vector`). */
export async function vectorsOf(
  call: Call,
  collection: CollectionView,
  documentIds: readonly string[],
  withVector: unknown,
): Promise<Map<string, Record<string, number[]>>> {
  if (withVector === false || withVector === undefined || withVector === null) return new Map();
  const ids = documentIds.map((id) => pointIdOf(collection.name, id));
  return new Map((await documentsByIds(call, collection.name, ids, true)).map((d) => [d.id, d.vectors ?? {}]));
}

/**
 * Nearest points through GoDB's vector search of the collection's own vector. A filter is applied exactly: the
 * points it allows are found first (point-reads.ts) and the search is limited to them. Scores are Qdrant's: cosine
 * and dot as they are, Euclid as the distance (GoDB answers 1 / (1 + distance)), best first.
 */
export async function nearest(call: Call, collection: CollectionView, q: NearestQuery): Promise<ScoredPoint[]> {
  const name = vectorNameOf(collection, q.using);
  const settings = collection.vectors[name];
  if (!settings) throw badRequest(`Wrong input: Not existing vector name error: ${name}`);
  if (q.vector.length !== settings.dimensions) {
    throw badRequest(
      `Wrong input: Vector dimension error: expected dim: ${settings.dimensions}, got ${q.vector.length}`,
    );
  }
  if (q.limit < 1) return [];
  const wanted = q.offset + q.limit;
  if (wanted > maxSearchLimit) throw unsupported(`offset + limit above ${maxSearchLimit}`);
  let filters: unknown;
  const filter = effectiveFilter(q.filter);
  const exact = filter === undefined ? undefined : exactFilter(collection.name, filter, readyIndexes(collection));
  const leftOut =
    q.exclude && q.exclude.length > 0 ? [{ field: 'id', operator: 'nin' as const, value: [...q.exclude] }] : [];
  if (exact) {
    // GoDB's own filtered search answers the same: passed down as it is, the examples left out beside it.
    filters = { ...exact, must: [...(exact.must ?? []), ...leftOut] };
  } else if (filter !== undefined) {
    const excluded = new Set(q.exclude ?? []);
    const allowed = (await matchingDocuments(call, collection, filter))
      .map((d) => d.id)
      .filter((id) => !excluded.has(id));
    if (allowed.length === 0) return [];
    filters = [{ field: 'id', operator: 'in', value: allowed }];
  } else if (leftOut.length > 0) {
    filters = leftOut;
  }
  const answer = await call<{ results: { document_id: string; score: number; metadata?: Record<string, unknown> }[] }>(
    'search-vector',
    {
      body: {
        primary_table: collection.name,
        vector: q.vector,
        vector_name: name,
        limit: wanted,
        threshold: 0,
        ...(filters !== undefined && { filters }),
      },
    },
  );
  const hits = qdrantScores(
    answer.results.slice(q.offset).map((r) => ({
      documentId: r.document_id,
      score: r.score,
      metadata: r.metadata ?? {},
    })),
    settings.distance === 'euclidean',
    q.scoreThreshold,
  );
  const vectors = await vectorsOf(
    call,
    collection,
    hits.map((h) => h.documentId),
    q.withVector,
  );
  return hits.map((h) => ({
    id: pointIdOf(collection.name, h.documentId),
    version: 0,
    score: h.score,
    payload: selectPayload(h.metadata, q.withPayload),
    vector: selectVectors(collection, vectors.get(h.documentId), q.withVector),
  }));
}

/**
 * Qdrant's average_vector recommendation: avg(positive) + (avg(positive) − avg(negative)), or avg(positive) with no
 * negatives; cosine examples are unit length first, as Qdrant stores them.
 */
export function averageVector(positive: number[][], negative: number[][], cosine: boolean): number[] {
  const prepared = (list: number[][]) => (cosine ? list.map((v) => unit(v)) : list);
  const avg = (list: number[][]) =>
    (list[0] ?? []).map((_, i) => list.reduce((sum, v) => sum + (v[i] ?? 0), 0) / list.length);
  const pos = avg(prepared(positive));
  if (negative.length === 0) return pos;
  const neg = avg(prepared(negative));
  return pos.map((p, i) => p + (p - (neg[i] ?? 0)));
}
