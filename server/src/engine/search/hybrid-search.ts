import type { QueryAnalysis } from '../text/query-analysis.js';
import type { hybridFusions } from '@godb/contract';
import type { Embedder } from '../embeddings/embedder.js';
import { textMatch } from './fts-query.js';
import { engagementFeature, learnToRank } from './ltr.js';
import type { Hit } from './hit.js';
import { answerPlan, type AnswerPlan, type TextPlan } from './text-filter-plan.js';
import type { Scope } from './scope.js';
import type { SearchCore } from './search-core.js';
import type { ClientVectorSpace } from './vector-query.js';
import { clientVectorSearch, vectorSearch } from './vector-search.js';

export interface HybridQuery {
  readonly text?: string | undefined;
  readonly vector?: unknown;
  readonly model?: string | undefined;
  /** A collection's own vector for the vector side (the query `vector` is then required). */
  readonly space?: ClientVectorSpace | undefined;
  /** Weight of the vector side, 0 to 1. */
  readonly alpha: number;
  readonly limit: number;
  readonly fusion: Fusion;
  readonly useMlRanking: boolean;
  readonly signal?: AbortSignal | undefined;
  /** How the text side analyses the query (language, stop words, synonyms); default English. */
  readonly analysis?: QueryAnalysis | undefined;
}

/** How the two sides' scores are put on one scale before alpha weighs them (see sideScores). */
export type Fusion = (typeof hybridFusions)[number];

/** Reciprocal rank fusion constant. */
export const rrfK = 60;

/**
 * One side's scores on the fusion's scale, by key (a document's or a chunk's seq), items best first:
 * - `dbsf_relative` (the default): `dbsf` with σ taken as at least |mean| / 6, so the window mean ± 3σ is never
 *   narrower than half to one and a half times the mean and a score is never judged more finely than relative to
 *   the side's scores (5 % below the mean is 0.05 below its 0.5). Plain dbsf stretched 14 of 17 text matches
 *   scoring a little below the best three (σ tiny) far down, so at alpha 0.3 the documents found by both sides
 *   ranked 4th and 5th, under three found by the text alone (issue #37, docs/decisions/0002). The floor applies to
 *   sides of three documents or more;
 * - `dbsf` (distribution-based, as Qdrant's): mean − 3σ → 0 and mean + 3σ → 1 (clamped);
 * - `weighted`: min-max, the best 1 and the worst 0 (put near-top scores at 0);
 * - `rrf`: 1 / (60 + rank).
 */
function sideScores(items: readonly { key: number; score: number }[], fusion: Fusion): Map<number, number> {
  if (fusion === 'rrf') return new Map(items.map((x, i) => [x.key, 1 / (rrfK + i + 1)]));
  if (fusion === 'dbsf' || fusion === 'dbsf_relative') {
    const mean = items.reduce((sum, x) => sum + x.score, 0) / items.length;
    const spread = Math.sqrt(items.reduce((sum, x) => sum + (x.score - mean) ** 2, 0) / items.length);
    // The floor needs a distribution: a side of one or two documents is judged as plain dbsf judges it (one match
    // scores 1), never capped near 0.5 under a side that found many (a rare code only one document holds).
    const floor = fusion === 'dbsf_relative' && items.length >= 3 ? Math.abs(mean) / 6 : 0;
    const sigma = Math.max(spread, floor);
    // dbsf with all scores equal (or one), or every score 0: each is as good as the side gets.
    if (sigma === 0) return new Map(items.map((x) => [x.key, 1]));
    const low = mean - 3 * sigma;
    return new Map(items.map((x) => [x.key, Math.min(1, Math.max(0, (x.score - low) / (6 * sigma)))]));
  }
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
 * Text (BM25, any word) and vector search, each asked for twice the limit, fused: alpha · vector + (1 − alpha) ·
 * text, each side on its fusion's scale (see sideScores); a document one side did not find has 0 from it.
 * `use_ml_ranking` then re-ranks with a model learned from engagement (see ltr.ts).
 */
export async function hybridSearch(
  core: SearchCore,
  embedder: Embedder,
  scope: Scope,
  q: HybridQuery,
): Promise<{ hits: Hit[]; notes: string[]; ranking: string; plan: AnswerPlan }> {
  const depth = q.limit * 2;
  const match = q.text ? textMatch(q.text, 'match') : undefined;
  let textPlan: TextPlan = { filter: scope.filters ? 'per-candidate' : 'none', path: 'text' };
  const onPlan = (plan: TextPlan) => {
    textPlan = plan;
  };
  const textHits = match
    ? core.textHits(scope, match, { limit: depth, ...(q.analysis && { analysis: q.analysis }), onPlan }).slice(0, depth)
    : [];
  const vectorQuery = {
    text: q.text,
    vector: q.vector,
    model: q.model,
    method: q.space?.settings.distance ?? 'cosine',
    threshold: -1,
    // Fused from the raw similarities (the relevance is 0 for every cosine below the unrelated median).
    calibrated: false,
    limit: depth,
    signal: q.signal,
  };
  const vectorSide = q.space
    ? await clientVectorSearch(core, scope, q.space, vectorQuery)
    : await vectorSearch(core, embedder, scope, vectorQuery);
  const vectorHits = vectorSide.hits.slice(0, depth);
  const plan = answerPlan(textPlan, { vector_filter: vectorSide.plan.filter, vector_path: vectorSide.plan.path });
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
  if (!q.useMlRanking) return { hits: fused, notes: [], ranking: q.fusion, plan };

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
    ranking: ltr.trained ? 'engagement-logistic' : q.fusion,
    plan,
  };
}
