import { createError } from '@godb/contract';
import type { QueryAnalysis } from '../text/query-analysis.js';
import type { Embedder } from '../embeddings/embedder.js';
import { textMatch } from './fts-query.js';
import { engagementFeature, learnToRank } from './ltr.js';
import type { Hit } from './hit.js';
import type { GivenStats } from '../text/bm25-score.js';
import { fuseSides, type Fusion, type SideEntry } from './hybrid-fusion.js';
import { answerPlan, type AnswerPlan, type TextPlan } from './text-filter-plan.js';
import type { Scope } from './scope.js';
import type { SearchCore } from './search-core.js';
import type { ClientVectorSpace } from './vector-query.js';
import { clientVectorSearch, vectorSearch, vectorSearchBy, type QueryVector } from './vector-search.js';

export type { Fusion } from './hybrid-fusion.js';

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
  /** A search by embedding: the query vector, when already made (the main thread embeds; a search worker gets it). */
  readonly given?: QueryVector | undefined;
}

/** The vector side's query: twice the limit, fused from the raw similarities. */
export function hybridVectorQuery(q: HybridQuery) {
  return {
    text: q.text,
    vector: q.vector,
    model: q.model,
    method: q.space?.settings.distance ?? 'cosine',
    threshold: -1,
    // Fused from the raw similarities (the relevance is 0 for every cosine below the unrelated median).
    calibrated: false,
    limit: q.limit * 2,
    signal: q.signal,
  };
}

/** A side's hits as fusion entries, keyed by document and chunk sequence numbers. */
const entriesOf = (hits: readonly Hit[]): SideEntry<number, Hit>[] =>
  hits.map((h) => ({
    key: h.doc.seq,
    score: h.score,
    chunks: h.chunks.map((c) => ({ key: c.seq, score: c.score })),
    item: h,
  }));

const embedderOf = (embedder: Embedder | null): Embedder => {
  if (embedder) return embedder;
  throw createError('INTERNAL', {}, { details: { reason: 'a hybrid search by embedding ran without the embedder' } });
};

/** The two sides of a hybrid search, each its best `2 · limit` documents, and how each found them. */
export interface HybridSides {
  readonly textHits: Hit[];
  readonly vectorHits: Hit[];
  readonly plan: AnswerPlan;
}

/**
 * The sides of a hybrid search: text (BM25, any word; with `stats`, ranked with a partitioned collection's summed
 * statistics) and vector, each asked for twice the limit.
 */
export async function hybridSides(
  core: SearchCore,
  /** Null on a search worker, which takes only searches by a collection's own vector (no query to embed). */
  embedder: Embedder | null,
  scope: Scope,
  q: HybridQuery,
  stats?: GivenStats,
): Promise<HybridSides> {
  const depth = q.limit * 2;
  const match = q.text ? textMatch(q.text, 'match') : undefined;
  let textPlan: TextPlan = { filter: scope.filters ? 'per-candidate' : 'none', path: 'text' };
  const onPlan = (plan: TextPlan) => {
    textPlan = plan;
  };
  const textHits = match
    ? core
        .textHits(scope, match, {
          limit: depth,
          ...(q.analysis && { analysis: q.analysis }),
          onPlan,
          ...(stats && { stats }),
        })
        .slice(0, depth)
    : [];
  const vectorQuery = hybridVectorQuery(q);
  const vectorSide = q.space
    ? await clientVectorSearch(core, scope, q.space, vectorQuery)
    : q.given
      ? await vectorSearchBy(core, scope, vectorQuery, q.given)
      : await vectorSearch(core, embedderOf(embedder), scope, vectorQuery);
  const vectorHits = vectorSide.hits.slice(0, depth);
  const plan = answerPlan(textPlan, { vector_filter: vectorSide.plan.filter, vector_path: vectorSide.plan.path });
  return { textHits, vectorHits, plan };
}

/**
 * Text (BM25, any word) and vector search, each asked for twice the limit, fused: alpha · vector + (1 − alpha) ·
 * text, each side on its fusion's scale (hybrid-fusion.ts); a document one side did not find has 0 from it.
 * `use_ml_ranking` then re-ranks with a model learned from engagement (see ltr.ts).
 */
export async function hybridSearch(
  core: SearchCore,
  embedder: Embedder | null,
  scope: Scope,
  q: HybridQuery,
): Promise<{ hits: Hit[]; notes: string[]; ranking: string; plan: AnswerPlan }> {
  const { textHits, vectorHits, plan } = await hybridSides(core, embedder, scope, q);
  const fusedEntries = fuseSides(entriesOf(textHits), entriesOf(vectorHits), q.alpha, q.fusion);
  const text = new Map(fusedEntries.map((e) => [e.key, e.text]));
  const vector = new Map(fusedEntries.map((e) => [e.key, e.vector]));
  const fused = fusedEntries.map((e): Hit => ({
    ...e.item,
    score: e.score,
    chunks: e.chunks.map((c) => ({ seq: c.key, score: c.score })),
  }));
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
