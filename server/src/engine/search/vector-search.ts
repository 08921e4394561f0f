import { createError } from '@godb/contract';
import type { Embedder } from '../embeddings/embedder.js';
import { cosineOf, hasScale, relevanceOf, scoreAt } from '../embeddings/relevance-scale.js';
import { clientSpaceKey } from '../collections/vector-space.js';
import type { Hit } from './hit.js';
import type { Scope } from './scope.js';
import type { SearchCore } from './search-core.js';
import { allowedSearch, broadFilterFrom, deepBelow, indexSearch } from './vector-candidates.js';
import {
  parseVector,
  queryVector,
  type ClientVectorSpace,
  type SpaceSource,
  type VectorQuery,
} from './vector-query.js';
import { copiesScan, exactScan } from './vector-scans.js';

/** How a vector search found its results (answered with `explain`; see the contract's SearchPlan). */
export interface SearchPlan {
  readonly filter: 'none' | 'index' | 'scan' | 'access' | 'per-candidate';
  readonly allowed?: number;
  /** A broad filter on indexed fields: the documents it allows, at least (counted up to the broad threshold). */
  readonly estimated_at_least?: number;
  readonly path: 'empty' | 'small-exact' | 'allowed-exact' | 'allowed-hnsw' | 'hnsw';
  readonly exact: boolean;
}
type Nearest = { hits: Hit[]; model: string; exact: boolean; dropped: number; plan: SearchPlan };

/**
 * HNSW candidates read per result, by storage kind: quantised indexes order candidates less exactly, so more are
 * rescored from float32 (i8 keeps about 8 bits per number, b1 only the sign).
 */
const overFetch = { f32: 1, f16: 1, i8: 3, b1: 10 } as const;

/**
 * Below this many vectors a space is scanned exactly instead of searched through its index: as fast, when the scan
 * reads the float32 copies in memory and rows only for the best documents, and exact.
 */
export const exactBelow = 2000;

/**
 * Below this share of the space a viewer's readable documents are kept as a set and HNSW candidates checked against
 * it (readable-sets.ts `kept`); above it, most candidates are readable and their rows are read as they come.
 */
const readableShareBelow = 0.25;

/**
 * Nearest documents by embedding. Candidates come from the tenant's HNSW index (f16), over-fetched and widened
 * until enough pass the access rule, filters and geo restriction; scores are then computed exactly from the
 * stored float32 vectors. When the restrictions are so selective that the index cannot supply enough
 * candidates, the allowed documents are scanned exactly instead.
 */
export async function vectorSearch(
  core: SearchCore,
  embedder: Embedder,
  scope: Scope,
  q: VectorQuery,
): Promise<{
  hits: Hit[];
  model: string;
  exact: boolean;
  cut: { score: number; dropped: number };
  plan: SearchPlan;
}> {
  return vectorSearchBy(core, scope, q, await queryVector(embedder, q));
}

/** The query vector of a search by embedding: given, or its text embedded (see queryVector). */
export interface QueryVector {
  readonly vector: Float32Array;
  readonly model: string;
  readonly dims: number;
}

/** vectorSearch once the query vector is known (the main thread embeds it; a search worker gets it). */
export async function vectorSearchBy(
  core: SearchCore,
  scope: Scope,
  q: VectorQuery,
  given: QueryVector,
): Promise<{
  hits: Hit[];
  model: string;
  exact: boolean;
  cut: { score: number; dropped: number };
  plan: SearchPlan;
}> {
  const { model, dims } = given;
  // Stored vectors are unit length; cosine and euclidean compare directions, so the query is made unit length too
  // (a client's vector scaled by 10 gave "cosines" of 9.4). Dot keeps the client's length, and its calibrated cut
  // holds only for a unit query.
  const norm = Math.hypot(...given.vector);
  const vector = q.method === 'dot' ? given.vector : given.vector.map((x) => x / norm);
  // 0 keeps everything (negative cosines too), as the specification's range 0–1 reads.
  // The model's scale holds for unit vectors: always for cosine and euclidean, for dot only with a unit query.
  const scaled = hasScale(model) && (q.method !== 'dot' || Math.abs(norm - 1) < 1e-3);
  const cutScore = q.threshold <= 0 ? -Infinity : scaled ? scoreAt(model, q.method, q.threshold) : q.threshold;
  const relevance =
    scaled && q.calibrated !== false ? (s: number) => relevanceOf(model, cosineOf(q.method, s)) : undefined;
  const found = await nearest(core, scope, { ...q, threshold: cutScore, relevance }, vector, model, dims);
  // The score a hit carries is the number the threshold was meant for (a similarity at the cut may map a rounding
  // below the threshold).
  const hits =
    relevance && q.threshold > 0 && !(q.combineLocation && scope.geo)
      ? found.hits.filter((h) => h.score >= q.threshold)
      : found.hits;
  return { ...found, hits, cut: { score: cutScore, dropped: found.dropped + found.hits.length - hits.length } };
}

/**
 * Nearest documents by a collection's own vector: the query `vector` is compared with the collection's distance
 * (cosine over directions, euclidean reported as 1 / (1 + distance), dot as the raw product), scores exact from
 * float32. `threshold` applies to that score (0 keeps everything). Hits carry no chunk: the vector belongs to the
 * whole document (results show its first chunk).
 */
export async function clientVectorSearch(
  core: SearchCore,
  scope: Scope,
  space: ClientVectorSpace,
  q: VectorQuery,
): Promise<{ hits: Hit[]; exact: boolean; cut: { score: number; dropped: number }; plan: SearchPlan }> {
  const { settings } = space;
  if (q.vector === undefined || q.vector === null || q.vector === '') {
    throw createError(
      'INVALID_VECTOR_FORMAT',
      {
        reason: `vector "${space.name}" of collection ${space.collection} holds your own vectors: give the query as \`vector\` (${settings.dimensions} numbers)`,
      },
      { field: 'body.vector' },
    );
  }
  const given = parseVector(q.vector, settings.dimensions, `vector "${space.name}" of collection ${space.collection}`);
  const norm = Math.hypot(...given);
  const vector = settings.distance === 'cosine' ? given.map((x) => x / norm) : given;
  const cutScore = q.threshold <= 0 ? -Infinity : q.threshold;
  const key = clientSpaceKey(space.collection, space.name);
  const found = await nearest(
    core,
    scope,
    { ...q, method: settings.distance, threshold: cutScore },
    vector,
    key,
    settings.dimensions,
    { factor: overFetch[settings.storage], client: space },
  );
  for (const hit of found.hits) hit.chunks = [];
  return { hits: found.hits, exact: found.exact, cut: { score: cutScore, dropped: found.dropped }, plan: found.plan };
}

/**
 * The planner: an empty space answers nothing; a small one (up to exactBelow vectors) is scanned exactly; a filtered
 * one whose allowed documents are known first is searched through that set (allowedSearch); any other through the
 * HNSW index, widened until enough candidates pass (indexSearch).
 */
async function nearest(
  core: SearchCore,
  scope: Scope,
  q: VectorQuery,
  vector: Float32Array,
  model: string,
  dims: number,
  source: SpaceSource = { factor: 1 },
): Promise<Nearest> {
  await core.vectors.ready(scope.viewer.tenantId, model, dims); // after a crash: built in the background
  const size = core.vectors.size(scope.viewer.tenantId, model, dims);
  const restricted =
    scope.filters !== undefined || scope.geo !== undefined || (scope.table !== undefined && !source.client);
  const checked = restricted ? ('per-candidate' as const) : ('none' as const);
  if (size === 0)
    return { hits: [], model, exact: false, dropped: 0, plan: { filter: checked, path: 'empty', exact: true } };
  if (size <= exactBelow) {
    // From the copies: every vector scored in memory, rows read for the best few documents only. The store's scan
    // (every vector read from SQLite and every document's row loaded, each query) answered 60-90 queries a second
    // at 1,300 vectors where the index answered 600 at 2,500: bench:cluster's three nodes, holding fewer documents
    // than the embedded node, fell below this size and searched seven times slower.
    const held = core.vectors.exactVectors(scope.viewer.tenantId, model);
    const scanned = held ? copiesScan(core, scope, q, vector, held) : exactScan(core, scope, q, vector, model, source);
    return { ...scanned, model, exact: true, plan: { filter: checked, path: 'small-exact', exact: true } };
  }
  const ef = core.vectors.settings(scope.viewer.tenantId, model).hnsw.ef_search;
  const copies = core.vectors.exactVectors(scope.viewer.tenantId, model);
  // How many allowed documents make a set cost more than checking HNSW candidates (vector-candidates.ts).
  const broadFrom = broadFilterFrom(q.limit * source.factor, size);
  const estimate =
    restricted && !scope.geo && copies
      ? core.allowed.estimate(scope.viewer.tenantId, scope.table, scope.filters, broadFrom)
      : undefined;
  const broadFilter = estimate !== undefined && estimate.low >= broadFrom;
  // Candidates of a filter on indexed fields are checked on their postings, their rows read only when they pass.
  const check =
    estimate !== undefined
      ? (docs: ReadonlySet<number>) => core.allowed.among(scope.viewer.tenantId, scope.table, scope.filters, docs)
      : undefined;
  if (estimate !== undefined && !broadFilter && estimate.high > broadFrom) {
    // Neither known broad nor known selective (an intersection of broad parts: its bounds are lost): one round of
    // the index with checked candidates first. A broad filter has its results there; a selective one finds too few
    // and makes its set, a round of ef candidates later.
    const tried = await indexSearch(core, scope, q, vector, {
      ...{ model, dims, size, ef, restricted, source, check },
      budget: Math.max(ef, q.limit * source.factor * 16),
    });
    if (!tried.gaveUp) {
      const plan = { filter: 'per-candidate', path: 'hnsw', exact: tried.exact } as const;
      return { ...tried, plan };
    }
  }
  // Filters (or one collection of a shared model index) without a geo restriction: the documents they allow are
  // known first, so a selective filter scans only their vectors and a broad one drops candidates by a set lookup.
  let allowed =
    restricted && !scope.geo && copies && !broadFilter
      ? core.allowed.get(scope.viewer.tenantId, scope.table, scope.filters)
      : undefined;
  if (!allowed && !scope.geo && copies) {
    // No set from the filters, but a viewer who may read few documents of the space: those are the set (its hits
    // are checked against the filters as any set's are), rather than candidates checked until enough are readable.
    const few = core.readable.few(scope, broadFrom);
    if (few) allowed = core.allowed.of(few, 'access');
  }
  if (allowed && copies) {
    const found = await allowedSearch(core, scope, q, vector, {
      space: model,
      dims,
      size,
      ef,
      source,
      allowed,
      copies,
    });
    const path = found.exact ? 'allowed-exact' : 'allowed-hnsw';
    return { ...found, model, plan: { filter: allowed.source, allowed: allowed.docs.size, path, exact: found.exact } };
  }
  if (broadFilter) {
    // A filter its field indexes count as broad is not made into a set (that would cost more than the search):
    // the index is searched and its candidates checked one by one, which finds enough among the first few.
    // Counted further (from memory: a walk over the keys in range), a broad filter's share tells its depth before
    // the first round: a 10 % filter read 2 ef candidates, then its depth, in two searches from the start.
    const deep = deepBelow(q.limit * source.factor, ef, size);
    const counted =
      deep > broadFrom ? core.allowed.estimate(scope.viewer.tenantId, scope.table, scope.filters, deep) : undefined;
    const share = counted && counted.high < deep ? counted.high / size : undefined;
    const found = await indexSearch(core, scope, q, vector, {
      ...{ model, dims, size, ef, restricted, source, check },
      ...(share !== undefined && { share }),
    });
    const plan = {
      filter: 'per-candidate',
      estimated_at_least: estimate.low,
      path: 'hnsw',
      exact: found.exact,
    } as const;
    return { ...found, plan };
  }
  // No filter, but a viewer who may read a part of the space only: candidates checked against the readable set in
  // memory, as deep as its share says, rows read for the best few (the access rule as one more predicate).
  const readable =
    // Kept per table: the set restricts to the scope's collection too (a model's space is shared by several).
    !scope.filters && !scope.geo && !scope.requireGeo && copies
      ? core.readable.kept(scope, Math.ceil(copies.documents * readableShareBelow))
      : undefined;
  if (readable && copies) {
    const check = (docs: ReadonlySet<number>) => {
      const out = new Set<number>();
      for (const doc of docs) if (readable.has(doc)) out.add(doc);
      return out;
    };
    // Of the space's documents (a model's space holds a vector per chunk): candidates pass at about that rate.
    const share = Math.min(1, Math.max(readable.size, 1) / Math.max(copies.documents, 1));
    const found = await indexSearch(core, scope, q, vector, {
      model,
      dims,
      size,
      ef,
      restricted,
      source,
      check,
      share,
    });
    return { ...found, plan: { filter: 'access', allowed: readable.size, path: 'hnsw', exact: found.exact } };
  }
  const found = await indexSearch(core, scope, q, vector, { model, dims, size, ef, restricted, source });
  return { ...found, plan: { filter: checked, path: 'hnsw', exact: found.exact } };
}
