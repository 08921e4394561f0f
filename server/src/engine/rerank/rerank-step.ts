import { createError, isGoDBError } from '@godb/contract';
import type { SearchRows } from '../access/search-rows.js';
import { fieldValue } from '../search/filters.js';
import type { Hit } from '../search/hit.js';
import type { Rerankers } from './rerankers.js';

/** The rerank step as the request gives it (see the contract's PipelineRerank). */
export interface RerankInput {
  readonly model: string;
  readonly query?: string | undefined;
  readonly candidates: number;
  readonly field?: string | undefined;
}

/** A rerank checked before any stage runs: the reranker resolved, the query known. */
export interface RerankPlan {
  readonly input: RerankInput;
  readonly query: string;
  readonly rerankers: Rerankers;
}

/** Stages as the pipeline input gives them, to find the first query (depth first) when rerank names none. */
interface QueryHolder {
  readonly query?: string | undefined;
  readonly prefetch?: readonly unknown[] | undefined;
}

function firstQuery(stages: readonly unknown[] | undefined): string | undefined {
  for (const stage of stages ?? []) {
    const s = stage as QueryHolder;
    if (typeof s.query === 'string' && s.query.trim() !== '') return s.query;
    const nested = firstQuery(s.prefetch);
    if (nested !== undefined) return nested;
  }
  return undefined;
}

/**
 * Checks a rerank step (docs/decisions/0060): its model must be configured (400 RERANK_MODEL_NOT_AVAILABLE naming
 * body.rerank.model) and it needs a query, its own or the first stage's that has one (400 naming body.rerank.query).
 */
export function planRerank(
  rerankers: Rerankers | undefined,
  input: RerankInput,
  prefetch: readonly unknown[],
): RerankPlan {
  if (!rerankers)
    throw createError(
      'RERANK_MODEL_NOT_AVAILABLE',
      { model: input.model, available: '(none)' },
      { field: 'body.rerank.model' },
    );
  rerankers.resolve(input.model);
  const query = input.query?.trim() ? input.query : firstQuery(prefetch);
  if (query === undefined)
    throw createError(
      'VALIDATION_FAILED',
      { detail: 'body.rerank.query is needed: no stage of body.prefetch has a query to score the candidates against.' },
      { field: 'body.rerank.query' },
    );
  return { input, query, rerankers };
}

/** The text of a candidate the reranker scores: title and content (default), title, its best chunk, or a field. */
function textOf(rows: SearchRows, hits: readonly Hit[], field: string | undefined): string[] {
  if (field === 'chunk') {
    const chunks = rows.chunkTexts(hits.flatMap((h) => (h.chunks[0] ? [h.chunks[0].seq] : [])));
    return hits.map((h) => (h.chunks[0] && chunks.get(h.chunks[0].seq)?.content) || h.doc.content);
  }
  if (field === undefined || field === 'content')
    return hits.map((h) => (h.doc.title ? `${h.doc.title}\n\n${h.doc.content}` : h.doc.content));
  return hits.map((h) => {
    const value = fieldValue(h.doc, field);
    return typeof value === 'string'
      ? value
      : Array.isArray(value)
        ? value.join(' ')
        : value == null
          ? ''
          : String(value);
  });
}

/**
 * Scores the best `candidates` hits with the reranker, under a deadline of RERANK_TIMEOUT_MS that the request's
 * own signal also ends (so the time is part of the answer's), and answers them by the reranker's scores, best
 * first (ties keep the earlier order); the hits beyond `candidates` are left out. A reranker past its deadline
 * answers 503 RERANKER_UNAVAILABLE naming the model.
 */
export async function rerankHits(
  rows: SearchRows,
  hits: readonly Hit[],
  plan: RerankPlan,
  signal: AbortSignal | undefined,
): Promise<Hit[]> {
  const pool = hits.slice(0, plan.input.candidates);
  if (pool.length === 0) return [];
  const reranker = plan.rerankers.resolve(plan.input.model);
  const texts = textOf(rows, pool, plan.input.field);
  const deadline = AbortSignal.timeout(plan.rerankers.timeoutMs);
  const both = signal ? AbortSignal.any([signal, deadline]) : deadline;
  let scores: number[];
  try {
    scores = await reranker.score(plan.query, texts, both);
  } catch (error) {
    if (signal?.aborted) throw signal.reason;
    if (deadline.aborted && !isGoDBError(error))
      throw createError(
        'RERANKER_UNAVAILABLE',
        { model: reranker.name, reason: `it did not answer within ${plan.rerankers.timeoutMs} ms (RERANK_TIMEOUT_MS)` },
        { field: 'body.rerank.model' },
      );
    throw error;
  }
  return pool
    .map((hit, i) => ({ hit: { ...hit, score: scores[i]! }, i }))
    .sort((a, b) => b.hit.score - a.hit.score || a.i - b.i)
    .map((x) => x.hit);
}
