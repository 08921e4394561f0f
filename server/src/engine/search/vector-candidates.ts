import type { Hit } from './hit.js';
import type { Scope } from './scope.js';
import type { SearchCore } from './search-core.js';
import { locationWeight, rank, rankScored, scoreKeys, unit, verify, type Ranked } from './vector-hits.js';
import type { SpaceSource, VectorQuery } from './vector-query.js';
import { allowedScan, exactScan, type AllowedSpace } from './vector-scans.js';

/** Largest candidate set read from the HNSW index before falling back to an exact scan. */
export const maxAnnCandidates = 4096;

/** How many times the ranks a filter's k-th allowed result is expected at a filtered graph search reads. */
const filteredDepthFactor = 3;
/** How much deeper than its pass rate says a filtered graph search widens to (see indexSearch). */
const depthMargin = 1.25;
/** How many times ef_search a filtered graph search reads at least (its deepest results are approximate). */
const filteredEfFactor = 2;

/**
 * Candidates a filtered HNSW search reads for `wanted` results when the filter keeps `share` of the index: the
 * allowed k-th nearest is expected near rank wanted / share, and the graph's approximate order loses some of those
 * near its end, so it reads several times that, and never fewer than a few ef (usearch's and Qdrant's filtered
 * searches widen ef the same way: the graph is traversed through filtered-out nodes, ef counts only passing ones).
 * Capped at maxAnnCandidates, past which the allowed vectors are scanned exactly.
 *
 * @example filteredDepth(10, 0.1, 100); // 300
 */
export function filteredDepth(wanted: number, share: number, ef: number): number {
  const depth = Math.max(ef * filteredEfFactor, (wanted / Math.max(share, 1e-9)) * filteredDepthFactor);
  return Math.min(maxAnnCandidates, Math.ceil(depth));
}

/**
 * The allowed documents below which a filter's share makes a filtered graph search read more than its least
 * (filteredDepth above 2 ef): worth counting up to before the search, to start at that depth.
 *
 * @example deepBelow(10, 100, 200_000); // 30,000 (15 %)
 */
export function deepBelow(wanted: number, ef: number, size: number): number {
  return Math.ceil(size * Math.min(1, (wanted * filteredDepthFactor) / (ef * filteredEfFactor)));
}

/** A model's space or a collection's own vector, searched through its HNSW index. */
export interface IndexedSpace {
  /** The space's key: a model, or a collection's own vector. */
  readonly model: string;
  readonly dims: number;
  /** Vectors the index holds. */
  readonly size: number;
  /** The index's ef_search: candidates it explores whatever k is. */
  readonly ef: number;
  /** Whether filters, a geo radius or one collection of a shared model index restrict the candidates. */
  readonly restricted: boolean;
  readonly source: SpaceSource;
  /**
   * Which of some candidate documents the filter lets through, from the field indexes' postings of those documents
   * (undefined: each candidate's row is read and the filter evaluated on it). Their rows are read only if they pass.
   */
  readonly check?: (docs: ReadonlySet<number>) => ReadonlySet<number> | undefined;
  /** At most the share of the index the filter keeps, when known before the search (its first round's depth). */
  readonly share?: number;
  /** Candidates past which the search gives up (`gaveUp`) instead of widening further and scanning. */
  readonly budget?: number;
}

/**
 * Nearest documents through the HNSW index: the index's own k best first, rescored exactly; widened while access
 * rules and filters leave too few, unless the candidates already fall below the threshold (farther ones cannot pass
 * it). Past maxAnnCandidates the space is scanned exactly instead.
 *
 * @example const found = await indexSearch(core, scope, q, vector, { model, dims, size, ef, restricted, source });
 */
export async function indexSearch(
  core: SearchCore,
  scope: Scope,
  q: VectorQuery,
  vector: Float32Array,
  space: IndexedSpace,
): Promise<{ hits: Hit[]; model: string; exact: boolean; dropped: number; gaveUp?: true }> {
  const { model, dims, size, ef, restricted, source, check, budget, share } = space;
  // HNSW explores ef_search candidates whatever k is, so up to that many cost the same search: a restricted query
  // (filters, a geo radius, or one collection of a model index shared by several) asks for all of them at once,
  // and a 10 % filter usually has its results after one round.
  // A filter on indexed fields starts as deep as a broad filter needs (filteredDepth at share 1).
  let k = Math.max(
    q.limit * source.factor,
    restricted ? ef : 0,
    check ? filteredDepth(q.limit * source.factor, share ?? 1, ef) : 0,
    // A share known before the search: its depth with the margin of a widening round (see below).
    check && share !== undefined
      ? Math.min(maxAnnCandidates, Math.ceil(filteredDepth(q.limit * source.factor, share, ef) * depthMargin))
      : 0,
  );
  for (;;) {
    const ann = await core.vectors.search(scope.viewer.tenantId, model, dims, vector, Math.min(k, size));
    const { hits, tail, dropped, passed } = score(core, scope, q, vector, model, ann.keys, source, check);
    const best = q.combineLocation && scope.geo ? (1 - locationWeight) * tail + locationWeight : tail;
    // Candidates that cover the whole index were all scored exactly: as exact as a scan.
    const whole = ann.keys.length >= size;
    // A filtered search reads as deep as the pass rate says its allowed results lie (filteredDepth): enough
    // passing candidates among the first ef are not yet the nearest allowed ones.
    const rate = ((passed ?? hits.length) + 1) / Math.max(1, ann.keys.length);
    const depth = check && k < maxAnnCandidates ? filteredDepth(q.limit * source.factor, rate, ef) : 0;
    if ((hits.length >= q.limit && k >= depth) || whole || best < q.threshold) {
      return { hits, model, exact: whole, dropped };
    }
    if (hits.length < q.limit && budget !== undefined && k >= budget) {
      return { hits, model, exact: false, dropped, gaveUp: true };
    }
    if (k >= maxAnnCandidates) break;
    // Enough found but not deep enough: to the depth, with a margin so that the next round's own pass rate (a
    // sample of other candidates) does not ask for a few more (each round searches from the start: a 10 % filter took
    // 2.9 rounds on average without it). Too few: widen at least ×4, or straight to what the pass rate so far says is
    // needed (with a margin): a 1 % filter reaches its thousand candidates in two or three rounds instead of five.
    k =
      hits.length >= q.limit
        ? Math.min(maxAnnCandidates, Math.ceil(depth * depthMargin))
        : Math.min(maxAnnCandidates, Math.max(k * 4, depth, Math.ceil((q.limit / rate) * 1.5)));
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

/**
 * From how many allowed documents a filter on indexed fields is broad: its set is not made, and the HNSW index is
 * searched with each candidate checked instead. Making the set costs about 3 µs per allowed document (postings,
 * vector keys, gathering); checking candidates about 20 µs each, and the index reads some 1.5 · k / share of them.
 * They cost the same at allowed² = 10 · k · index size: at 50,000 vectors and k = 10, 2,200 documents (4.5 %); at
 * a million, 10,000 (1 %). bench:filters measured both sides (docs/decisions/0050-field-indexes.md).
 */
export function broadFilterFrom(wanted: number, size: number): number {
  return Math.ceil(Math.max(wanted * 16, Math.sqrt(10 * wanted * size)));
}

/**
 * Filtered search over the documents a filter allows (their set known before any vector is compared). Few
 * vectors: all of them are compared exactly (faster than the index, and exact — recall 1 however selective the
 * filter). Many: the index is asked for as many candidates as the filter's share of the index says are needed,
 * and candidates outside the set are dropped by a lookup; rows are read only for the best few, which are checked
 * again against the access rule and the filters (the set ignores the caller, and may hold a document deleted since).
 *
 * @example const found = await allowedSearch(core, scope, q, vector, { space, dims, size, ef, source, allowed, copies });
 */
export async function allowedSearch(
  core: SearchCore,
  scope: Scope,
  q: VectorQuery,
  query: Float32Array,
  s: AllowedSpace,
): Promise<{ hits: Hit[]; exact: boolean; dropped: number }> {
  const wanted = q.limit * s.source.factor;
  // A set from field indexes is new at each query with a new value; looking up its vector keys costs as much as the
  // set again. When its documents alone (a document has one vector or more, but may have none in this space: hence
  // the margin) say the index wins, the keys are not looked up: the index takes the documents as its predicate.
  const docs = s.allowed.docs.size;
  const broad = docs ** 2 > 4 * scanCostRatio * wanted * s.size && docs > wanted * 16;
  const keys = broad ? undefined : s.allowed.keys(s.space, s.copies);
  if (keys?.length === 0 || docs === 0) return { hits: [], exact: true, dropped: 0 };
  if (keys) {
    const scanWins = keys.length ** 2 <= scanCostRatio * wanted * s.size && keys.length * s.dims <= maxGathered;
    if (scanWins || keys.length <= wanted * 4) return allowedScan(core, scope, q, query, s);
  }
  const share = Math.min(1, (keys?.length ?? docs) / s.size);
  let k = filteredDepth(wanted, share, s.ef);
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
  return {
    ...verify(core, scope, q, scoreKeys(q, query, keys ?? s.allowed.keys(s.space, s.copies), s.copies, null)),
    exact: true,
  };
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
  check?: (docs: ReadonlySet<number>) => ReadonlySet<number> | undefined,
): Ranked & { passed?: number } {
  if (chunkSeqs.length === 0) return { hits: [], tail: Infinity, dropped: 0 };
  const exact = core.vectors.exactVectors(scope.viewer.tenantId, model);
  if (!exact) {
    const { chunks, docs } = source.client
      ? core.loadDocumentVectors(scope, chunkSeqs)
      : core.loadChunkVectors(scope, chunkSeqs);
    return rank(core, scope, q, query, source.client ? unit(source.client, chunks) : chunks, docs);
  }
  const scored = scoreKeys(q, query, chunkSeqs, exact, null);
  const passing = check?.(new Set(scored.map((c) => c.doc)));
  // Candidates that passed the field indexes: rows read for the best few only (the pass rate, which sets the depth,
  // is the postings' verdict); a deep filtered search read a row for each of its hundreds of passing candidates.
  if (passing)
    return {
      ...verify(
        core,
        scope,
        q,
        scored.filter((c) => passing.has(c.doc)),
      ),
      passed: passing.size,
    };
  // Rows with the rule: most candidates of a vector search are results (k starts at the limit).
  const docs = core.load(scope, [...new Set(scored.map((c) => c.doc))]);
  return rankScored(
    core,
    scope,
    q,
    scored.filter((c) => docs.has(c.doc)),
    docs,
  );
}
