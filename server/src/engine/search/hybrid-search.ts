import type { Embedder } from '../embeddings/embedder.js';
import { textMatch } from './fts-query.js';
import { engagementFeature, learnToRank } from './ltr.js';
import type { Hit } from './hit.js';
import type { Scope } from './scope.js';
import type { SearchCore } from './search-core.js';
import { clientVectorSearch, vectorSearch, type ClientVectorSpace } from './vector-search.js';

export interface HybridQuery {
  readonly text?: string | undefined;
  readonly vector?: unknown;
  readonly model?: string | undefined;
  /** A collection's own vector for the vector side (the query `vector` is then required). */
  readonly space?: ClientVectorSpace | undefined;
  /** Weight of the vector side, 0 to 1. */
  readonly alpha: number;
  readonly limit: number;
  readonly fusion: 'weighted' | 'rrf';
  readonly useMlRanking: boolean;
  readonly signal?: AbortSignal | undefined;
}

/** Reciprocal rank fusion constant. */
export const rrfK = 60;

/**
 * One side's scores on the fusion's scale, by key (a document's or a chunk's seq): min-max normalised for
 * `weighted`, 1 / (60 + rank) for `rrf` (items best first).
 */
function sideScores(items: readonly { key: number; score: number }[], fusion: 'weighted' | 'rrf'): Map<number, number> {
  if (fusion === 'rrf') return new Map(items.map((x, i) => [x.key, 1 / (rrfK + i + 1)]));
  const min = Math.min(...items.map((x) => x.score));
  const max = Math.max(...items.map((x) => x.score));
  return new Map(items.map((x) => [x.key, max === min ? 1 : (x.score - min) / (max - min)]));
}

/** A side's documents, best first (hits come ranked). */
const documentsOf = (hits: readonly Hit[]) => hits.map((h) => ({ key: h.doc.seq, score: h.score }));

/** A side's chunks, best first. */
const chunksOf = (hits: readonly Hit[]) =>
  hits
    .flatMap((h) => h.chunks)
    .sort((a, b) => b.score - a.score)
    .map((c) => ({ key: c.seq, score: c.score }));

/**
 * Text (BM25, any word) and vector search, each asked for twice the limit, fused: `weighted` scores
 * alpha · vector + (1 − alpha) · text after min-max normalising each side; `rrf` sums 1 / (60 + rank) weighted
 * the same way. `use_ml_ranking` then re-ranks with a model learned from engagement (see ltr.ts).
 */
export async function hybridSearch(
  core: SearchCore,
  embedder: Embedder,
  scope: Scope,
  q: HybridQuery,
): Promise<{ hits: Hit[]; notes: string[]; ranking: string }> {
  const depth = q.limit * 2;
  const match = q.text ? textMatch(q.text, 'match') : undefined;
  const textHits = match ? core.textHits(scope, match, { limit: depth }).slice(0, depth) : [];
  const vectorQuery = {
    text: q.text,
    vector: q.vector,
    model: q.model,
    method: q.space?.settings.distance ?? 'cosine',
    threshold: -1,
    limit: depth,
    signal: q.signal,
  };
  const vectorHits = (
    q.space
      ? await clientVectorSearch(core, scope, q.space, vectorQuery)
      : await vectorSearch(core, embedder, scope, vectorQuery)
  ).hits.slice(0, depth);
  const text = sideScores(documentsOf(textHits), q.fusion);
  const vector = sideScores(documentsOf(vectorHits), q.fusion);
  const textChunks = sideScores(chunksOf(textHits), q.fusion);
  const vectorChunks = sideScores(chunksOf(vectorHits), q.fusion);
  const merged = new Map<number, Hit>();
  for (const hit of [...textHits, ...vectorHits]) {
    const existing = merged.get(hit.doc.seq);
    const seqs = new Set([...(existing?.chunks ?? []), ...hit.chunks].map((c) => c.seq));
    // One entry per chunk, with the chunk's fused score (a chunk found by both sides is shown once).
    const chunks = [...seqs]
      .map((seq) => ({
        seq,
        score: q.alpha * (vectorChunks.get(seq) ?? 0) + (1 - q.alpha) * (textChunks.get(seq) ?? 0),
      }))
      .sort((a, b) => b.score - a.score);
    merged.set(hit.doc.seq, { ...(existing ?? hit), chunks });
  }
  const fused = [...merged.values()].map((hit) => {
    hit.score = q.alpha * (vector.get(hit.doc.seq) ?? 0) + (1 - q.alpha) * (text.get(hit.doc.seq) ?? 0);
    return hit;
  });
  fused.sort((a, b) => b.score - a.score);
  if (!q.useMlRanking) return { hits: fused, notes: [], ranking: q.fusion === 'rrf' ? 'rrf' : 'weighted' };

  const engaged = core.engagement.engagedAmong(
    scope.viewer.tenantId,
    fused.map((h) => h.doc.seq),
  );
  const newest = Math.max(...fused.map((h) => h.doc.updated_at), 1);
  const ltr = learnToRank(
    fused.map((hit) => ({
      hit,
      features: {
        text: text.get(hit.doc.seq) ?? 0,
        vector: vector.get(hit.doc.seq) ?? 0,
        engagement: engagementFeature(hit),
        recency: Math.exp(-(newest - hit.doc.updated_at) / (30 * 86400)),
      },
    })),
    engaged,
  );
  return {
    hits: ltr.ranked,
    notes: [ltr.note],
    ranking: ltr.trained ? 'engagement-logistic' : q.fusion === 'rrf' ? 'rrf' : 'weighted',
  };
}
