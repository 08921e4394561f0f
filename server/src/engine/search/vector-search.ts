import { jsonInput } from './json-input.js';
import { createError } from '@godb/contract';
import type { Embedder } from '../embeddings/embedder.js';
import { cosineOf, hasScale, relevanceOf, scoreAt } from '../embeddings/relevance-scale.js';
import type { RankedChunk } from '../text/bm25-index.js';
import type { Hit, LoadedDocument } from './hit.js';
import type { Scope } from './scope.js';
import type { SearchCore } from './search-core.js';
import type { VectorSettings } from '@godb/contract';
import { clientSpaceKey } from '../collections/vector-space.js';
import { dotProduct, squaredDistance, type ExactVectors } from '../vectors/exact-vectors.js';
import { exactSearch, MetricKind, type Matches } from 'usearch';
import type { AllowedSet } from './allowed-sets.js';
import { Nearest } from '../vectors/index-tail.js';

export type SimilarityMethod = 'cosine' | 'euclidean' | 'dot';

export interface VectorQuery {
  readonly text?: string | undefined;
  readonly vector?: unknown;
  readonly model?: string | undefined;
  readonly method: SimilarityMethod;
  /**
   * Results scoring below are dropped (0 or less keeps everything; hybrid asks −1): for vectorSearch, on the
   * score it answers (the model's relevance when calibrated); inside, on the raw similarity.
   */
  readonly threshold: number;
  /**
   * vectorSearch: answer the model's calibrated relevance as the score (the similarity beside it), as the API does;
   * false keeps the raw similarity as the score (hybrid fuses raw similarities). Default true.
   */
  readonly calibrated?: boolean | undefined;
  /** Inside: the score a raw similarity is answered as (absent: the similarity itself). */
  readonly relevance?: ((similarity: number) => number) | undefined;
  readonly limit: number;
  /** Blend proximity into the score when there is a geo restriction. */
  readonly combineLocation?: boolean;
  /** Aborted when the caller has gone or its deadline passed: the query's embedding is then not computed. */
  readonly signal?: AbortSignal | undefined;
}

/** A collection's own vector (given by clients) to search instead of a model's chunk vectors. */
export interface ClientVectorSpace {
  readonly collection: string;
  readonly name: string;
  readonly settings: VectorSettings;
}

/**
 * HNSW candidates read per result, by storage kind: quantised indexes order candidates less exactly, so more are
 * rescored from float32 (i8 keeps about 8 bits per number, b1 only the sign).
 */
const overFetch = { f32: 1, f16: 1, i8: 3, b1: 10 } as const;

/** Weight of proximity in `combine_location_score`: score = 0.7·similarity + 0.3·(1 − distance / radius). */
export const locationWeight = 0.3;
/** Largest candidate set read from the HNSW index before falling back to an exact scan. */
export const maxAnnCandidates = 4096;
/**
 * Below this many vectors a space is scanned exactly instead of searched through its index: as fast, when the scan
 * reads the float32 copies in memory and rows only for the best documents, and exact.
 */
export const exactBelow = 2000;

/** Exact similarity of the query to a stored (unit-length) vector; euclidean maps distance d to 1 / (1 + d). */
export function similarity(method: SimilarityMethod, query: Float32Array, stored: Float32Array): number {
  if (method === 'euclidean') return 1 / (1 + Math.sqrt(squaredDistance(query, stored)));
  return dotProduct(query, stored);
}

/** Parses a client's vector: a JSON array of finite numbers (or that array as a string) of the model's size. */
export function parseVector(raw: unknown, dims: number, model: string): Float32Array {
  const value = jsonInput(raw, 'INVALID_VECTOR_FORMAT', 'body.vector');
  const invalid = () =>
    createError('INVALID_VECTOR_FORMAT', { reason: 'expected a JSON array of numbers' }, { field: 'body.vector' });
  const finite = (x: unknown) => typeof x === 'number' && Number.isFinite(x);
  if (!Array.isArray(value)) throw invalid();
  if (value.length !== dims) {
    if (!value.every(finite)) throw invalid();
    throw createError(
      'INVALID_VECTOR_FORMAT',
      { reason: `expected ${dims} numbers for ${model}, got ${value.length}` },
      { field: 'body.vector' },
    );
  }
  const vector = new Float32Array(dims);
  for (let i = 0; i < dims; i += 1) {
    const x: unknown = value[i];
    if (!finite(x)) throw invalid();
    vector[i] = x as number;
    // 1e39 is a finite double but Infinity as a float32: refused, not scored NaN and silently dropped.
    if (!Number.isFinite(vector[i]!)) {
      throw createError(
        'INVALID_VECTOR_FORMAT',
        { reason: `body.vector[${i}] is beyond the float32 range (±3.4e38)` },
        { field: 'body.vector' },
      );
    }
  }
  if (vector.every((x) => x === 0)) {
    throw createError('INVALID_VECTOR_FORMAT', { reason: 'a zero vector has no direction' }, { field: 'body.vector' });
  }
  return vector;
}

/** The query vector: the given vector, or the query text embedded with the model. */
export async function queryVector(
  embedder: Embedder,
  q: Pick<VectorQuery, 'text' | 'vector' | 'model' | 'signal'>,
): Promise<{ vector: Float32Array; model: string; dims: number }> {
  const model = embedder.resolve(q.model);
  if (q.vector !== undefined && q.vector !== null && q.vector !== '') {
    return { vector: parseVector(q.vector, model.dimensions, model.name), model: model.name, dims: model.dimensions };
  }
  if (!q.text || q.text.trim() === '') throw createError('QUERY_REQUIRED', {}, { field: 'body.query' });
  const [embedding] = await embedder.embed(model.name, [q.text], undefined, q.signal);
  return { vector: embedding!.vector, model: model.name, dims: model.dimensions };
}

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
): Promise<{ hits: Hit[]; model: string; exact: boolean; cut: { score: number; dropped: number } }> {
  const given = await queryVector(embedder, q);
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
): Promise<{ hits: Hit[]; exact: boolean; cut: { score: number; dropped: number } }> {
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
  return { hits: found.hits, exact: found.exact, cut: { score: cutScore, dropped: found.dropped } };
}

/** Where a space's vectors are read from when the index's float32 copies are not in memory. */
interface SpaceSource {
  readonly factor: number;
  readonly client?: ClientVectorSpace;
}

async function nearest(
  core: SearchCore,
  scope: Scope,
  q: VectorQuery,
  vector: Float32Array,
  model: string,
  dims: number,
  source: SpaceSource = { factor: 1 },
): Promise<{ hits: Hit[]; model: string; exact: boolean; dropped: number }> {
  await core.vectors.ready(scope.viewer.tenantId, model, dims); // after a crash: built in the background
  const size = core.vectors.size(scope.viewer.tenantId, model, dims);
  if (size === 0) return { hits: [], model, exact: false, dropped: 0 };
  if (size <= exactBelow) {
    // From the copies: every vector scored in memory, rows read for the best few documents only. The store's scan
    // (every vector read from SQLite and every document's row loaded, each query) answered 60-90 queries a second
    // at 1,300 vectors where the index answered 600 at 2,500: bench:cluster's three nodes, holding fewer documents
    // than the embedded node, fell below this size and searched seven times slower.
    const held = core.vectors.exactVectors(scope.viewer.tenantId, model);
    const scanned = held ? copiesScan(core, scope, q, vector, held) : exactScan(core, scope, q, vector, model, source);
    return { ...scanned, model, exact: true };
  }
  // The index's own k best first, rescored exactly; widened while access rules and filters leave too few, unless
  // the candidates already fall below the threshold (farther ones cannot pass it).
  // HNSW explores ef_search candidates whatever k is, so up to that many cost the same search: a restricted query
  // (filters, a geo radius, or one collection of a model index shared by several) asks for all of them at once,
  // and a 10 % filter usually has its results after one round.
  const restricted =
    scope.filters !== undefined || scope.geo !== undefined || (scope.table !== undefined && !source.client);
  const ef = core.vectors.settings(scope.viewer.tenantId, model).hnsw.ef_search;
  const copies = core.vectors.exactVectors(scope.viewer.tenantId, model);
  // Filters (or one collection of a shared model index) without a geo restriction: the documents they allow are
  // known first, so a selective filter scans only their vectors and a broad one drops candidates by a set lookup.
  const allowed =
    restricted && !scope.geo && copies
      ? core.allowed.get(scope.viewer.tenantId, scope.table, scope.filters)
      : undefined;
  if (allowed && copies) {
    return {
      ...(await allowedSearch(core, scope, q, vector, { space: model, dims, size, ef, source, allowed, copies })),
      model,
    };
  }
  let k = Math.max(q.limit * source.factor, restricted ? ef : 0);
  for (;;) {
    const ann = await core.vectors.search(scope.viewer.tenantId, model, dims, vector, Math.min(k, size));
    const { hits, tail, dropped } = score(core, scope, q, vector, model, ann.keys, source);
    const best = q.combineLocation && scope.geo ? (1 - locationWeight) * tail + locationWeight : tail;
    // Candidates that cover the whole index were all scored exactly: as exact as a scan.
    const whole = ann.keys.length >= size;
    if (hits.length >= q.limit || whole || best < q.threshold) return { hits, model, exact: whole, dropped };
    if (k >= maxAnnCandidates) break;
    // Widen at least ×4, or straight to what the pass rate so far says is needed (with a margin): a 1 % filter
    // reaches its thousand candidates in two or three rounds instead of five.
    const rate = (hits.length + 1) / Math.max(1, ann.keys.length);
    k = Math.min(maxAnnCandidates, Math.max(k * 4, Math.ceil((q.limit / rate) * 1.5)));
  }
  return { ...exactScan(core, scope, q, vector, model, source), model, exact: true };
}

/**
 * When an exact scan of the allowed vectors beats the index. The index reads about k / share candidates for k
 * results (share: the filter's part of the index), each costing some 20 distance computations to find; the scan
 * costs one per allowed vector. So the scan wins while allowed² ≤ 20 · k · index size: at 100,000 vectors and
 * k = 10, up to about 4,500 allowed vectors (a 4 % filter); at a million, 14,000 (1.4 %).
 */
const scanCostRatio = 20;
/** Numbers an exact scan gathers at most (64 MB of float32), whatever the cost model says. */
const maxGathered = 16_000_000;

interface AllowedSpace {
  readonly space: string;
  readonly dims: number;
  readonly size: number;
  readonly ef: number;
  readonly source: SpaceSource;
  readonly allowed: AllowedSet;
  readonly copies: ExactVectors;
}

/**
 * Filtered search over the documents a filter allows (their set known before any vector is compared). Few
 * vectors: all of them are compared exactly (faster than the index, and exact — recall 1 however selective the
 * filter). Many: the index is asked for as many candidates as the filter's share of the index says are needed,
 * and candidates outside the set are dropped by a lookup; rows are read only for the best few, which are checked
 * again against the access rule and the filters (the set ignores the caller, and may hold a document deleted since).
 */
async function allowedSearch(
  core: SearchCore,
  scope: Scope,
  q: VectorQuery,
  query: Float32Array,
  s: AllowedSpace,
): Promise<{ hits: Hit[]; exact: boolean; dropped: number }> {
  const keys = s.allowed.keys(s.space);
  const wanted = q.limit * s.source.factor;
  if (keys.length === 0) return { hits: [], exact: true, dropped: 0 };
  const scanWins = keys.length ** 2 <= scanCostRatio * wanted * s.size && keys.length * s.dims <= maxGathered;
  if (scanWins || keys.length <= wanted * 4) return allowedScan(core, scope, q, query, s);
  const share = keys.length / s.size;
  let k = Math.min(maxAnnCandidates, Math.max(s.ef, Math.ceil((wanted / share) * 1.5)));
  for (;;) {
    const ann = await core.vectors.search(
      scope.viewer.tenantId,
      s.space,
      s.dims,
      query,
      Math.min(k, s.size),
      s.allowed.docs,
    );
    const scored = scoreKeys(q, query, ann.keys, s.copies, s.allowed.docs);
    const ranked = verify(core, scope, q, scored);
    const whole = ann.keys.length >= s.size;
    if (ranked.hits.length >= q.limit || whole || ranked.tail < q.threshold) return { ...ranked, exact: whole };
    if (k >= maxAnnCandidates) break;
    k = Math.min(maxAnnCandidates, k * 4);
  }
  return { ...verify(core, scope, q, scoreKeys(q, query, keys, s.copies, null)), exact: true };
}

/** usearch's metric for an exact scan: the same order as the similarity (stored vectors are unit length for cosine). */
const metricOf = { cosine: MetricKind.Cos, euclidean: MetricKind.L2sq, dot: MetricKind.IP } as const;

/**
 * An exact scan of the allowed vectors, gathered in one matrix and compared by usearch (SIMD, a few times faster
 * than a loop in JavaScript): the nearest few are scored, then more while the access rule leaves too few.
 */
function allowedScan(
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
function copiesScan(
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

/** Exact scores of vectors by key from the float32 copies (only those of allowed documents, when given). */
function scoreKeys(
  q: VectorQuery,
  query: Float32Array,
  keys: readonly number[],
  copies: ExactVectors,
  docs: ReadonlySet<number> | null,
): RankedChunk[] {
  const scored: RankedChunk[] = [];
  for (const key of keys) {
    const held = copies.get(key);
    if (held && (!docs || docs.has(held.doc)))
      scored.push({ chunk: key, doc: held.doc, score: similarity(q.method, query, held.vector) });
  }
  return scored;
}

/**
 * The best scored candidates as hits, reading rows only for the best documents: twice the limit first, four
 * times more while the access rule and filters leave too few and better candidates remain.
 */
function verify(core: SearchCore, scope: Scope, q: VectorQuery, scored: RankedChunk[]): Ranked {
  scored.sort((a, b) => b.score - a.score);
  const tail = scored.length > 0 ? scored[scored.length - 1]!.score : Infinity;
  for (let take = q.limit * 2; ; take *= 4) {
    const chosen = new Set<number>();
    let last = 0;
    for (; last < scored.length && chosen.size < take; last += 1) chosen.add(scored[last]!.doc);
    const slice = last === scored.length ? scored : scored.filter((c) => chosen.has(c.doc));
    const ranked = rankScored(core, scope, q, slice);
    const rest = last < scored.length ? scored[last]!.score : -Infinity;
    if (ranked.hits.length >= q.limit || last === scored.length || rest < q.threshold) return { ...ranked, tail };
  }
}

/**
 * Scores HNSW candidates exactly: from the index's float32 copies in memory, with the documents' rows and the
 * access rule read from the store; or, without copies, vectors and documents from the store in one query.
 */
function score(
  core: SearchCore,
  scope: Scope,
  q: VectorQuery,
  query: Float32Array,
  model: string,
  chunkSeqs: readonly number[],
  source: SpaceSource,
): Ranked {
  if (chunkSeqs.length === 0) return { hits: [], tail: Infinity, dropped: 0 };
  const exact = core.vectors.exactVectors(scope.viewer.tenantId, model);
  if (!exact) {
    const { chunks, docs } = source.client
      ? core.loadDocumentVectors(scope, chunkSeqs)
      : core.loadChunkVectors(scope, chunkSeqs);
    return rank(core, scope, q, query, source.client ? unit(source.client, chunks) : chunks, docs);
  }
  const held = scoreKeys(q, query, chunkSeqs, exact, null);
  // Rows with the rule: most candidates of a vector search are results (k starts at the limit).
  const docs = core.load(scope, [...new Set(held.map((c) => c.doc))]);
  return rankScored(
    core,
    scope,
    q,
    held.filter((c) => docs.has(c.doc)),
    docs,
  );
}

function exactScan(
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

/** Stored client vectors as they are compared: unit length for cosine (the store keeps them as given). */
function unit<T extends { vector: Float32Array }>(space: ClientVectorSpace, chunks: T[]): T[] {
  if (space.settings.distance !== 'cosine') return chunks;
  return chunks.map((c) => {
    // Not Math.hypot(...vector): spreading 512 arguments per candidate cost more than reading it from the store.
    const norm = Math.sqrt(dotProduct(c.vector, c.vector));
    return { ...c, vector: c.vector.map((x) => x / norm) };
  });
}

function rank(
  core: SearchCore,
  scope: Scope,
  q: VectorQuery,
  query: Float32Array,
  chunks: readonly { seq: number; doc: number; vector: Float32Array }[],
  docs?: Map<number, LoadedDocument>,
): Ranked {
  const scored = chunks.map((c) => ({ chunk: c.seq, doc: c.doc, score: similarity(q.method, query, c.vector) }));
  return rankScored(core, scope, q, scored, docs);
}

/** Hits best first; the lowest similarity among the candidates; how many hits the threshold dropped. */
interface Ranked {
  readonly hits: Hit[];
  readonly tail: number;
  readonly dropped: number;
}

/** Groups scored readable chunks into hits (best first), applying filters, geo and the threshold. */
function rankScored(
  core: SearchCore,
  scope: Scope,
  q: VectorQuery,
  scored: RankedChunk[],
  docs?: Map<number, LoadedDocument>,
): Ranked {
  const chunkHits = scored.sort((a, b) => b.score - a.score);
  // The lowest similarity among the readable candidates (none readable: keep looking).
  const tail = chunkHits.length > 0 ? chunkHits[chunkHits.length - 1]!.score : Infinity;
  const hits = core.group(scope, chunkHits, docs);
  // The threshold applies to the similarity, before proximity is blended in (a near but unrelated document
  // must not pass it).
  const similar = new Set(hits.filter((h) => h.score >= q.threshold));
  const relevance = q.relevance;
  if (relevance) {
    for (const hit of hits) {
      hit.similarity = hit.score;
      hit.score = relevance(hit.score);
      hit.chunks = hit.chunks.map((c) => ({ seq: c.seq, score: relevance(c.score) }));
    }
  }
  if (q.combineLocation && scope.geo) {
    for (const hit of hits) {
      if (hit.distance !== undefined)
        hit.score = (1 - locationWeight) * hit.score + locationWeight * (1 - hit.distance / scope.geo.radiusKm);
    }
    hits.sort((a, b) => b.score - a.score);
  }
  const kept = hits.filter((h) => similar.has(h));
  return { hits: kept, tail, dropped: hits.length - kept.length };
}
