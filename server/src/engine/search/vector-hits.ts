import type { RankedChunk } from '../text/bm25-index.js';
import { dotProduct, type ExactVectors } from '../vectors/exact-vectors.js';
import type { Hit, LoadedDocument } from './hit.js';
import type { Scope } from './scope.js';
import type { SearchCore } from './search-core.js';
import { similarity, type ClientVectorSpace, type VectorQuery } from './vector-query.js';

/** Weight of proximity in `combine_location_score`: score = 0.7·similarity + 0.3·(1 − distance / radius). */
export const locationWeight = 0.3;

/** Hits best first; the lowest similarity among the candidates; how many hits the threshold dropped. */
export interface Ranked {
  readonly hits: Hit[];
  readonly tail: number;
  readonly dropped: number;
}

/** Exact scores of vectors by key from the float32 copies (only those of allowed documents, when given). */
export function scoreKeys(
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
export function verify(core: SearchCore, scope: Scope, q: VectorQuery, scored: RankedChunk[]): Ranked {
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

/** Stored client vectors as they are compared: unit length for cosine (the store keeps them as given). */
export function unit<T extends { vector: Float32Array }>(space: ClientVectorSpace, chunks: T[]): T[] {
  if (space.settings.distance !== 'cosine') return chunks;
  return chunks.map((c) => {
    // Not Math.hypot(...vector): spreading 512 arguments per candidate cost more than reading it from the store.
    const norm = Math.sqrt(dotProduct(c.vector, c.vector));
    return { ...c, vector: c.vector.map((x) => x / norm) };
  });
}

/** Scores chunks (their vectors given) against the query exactly and ranks them into hits (rankScored). */
export function rank(
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

/** Groups scored readable chunks into hits (best first), applying filters, geo and the threshold. */
export function rankScored(
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
