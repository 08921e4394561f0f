import type { pipelineFusions, pipelineStageKinds } from '@godb/contract';
import type { RerankInput } from '../../rerank/rerank-step.js';
import type { FormulaSpec } from './formula.js';
import type { GroupListMode } from './group-by.js';
import type { FeedbackOptions } from '../../text/rm3-feedback.js';

/** A fusion as the request gives it (see the contract's PipelineFusion). */
export interface FusionInput {
  readonly method: (typeof pipelineFusions)[number];
  readonly k?: number | undefined;
  readonly weights?: readonly number[] | undefined;
}

/** A rescore as the request gives it. */
export interface RescoreInput {
  readonly vector_name: string;
  readonly query?: string | undefined;
  readonly vector?: readonly number[] | undefined;
  /** For a multi-vector: the query's vectors, scored by exact MaxSim. */
  readonly multi_vector?: readonly (readonly number[])[] | undefined;
}

/** What combines a list of stages: the request itself, or a nested stage. */
export interface CombineInput {
  readonly prefetch?: readonly unknown[] | undefined;
  readonly fusion?: FusionInput | undefined;
  readonly rescore?: RescoreInput | undefined;
}

/** One stage as the request gives it (validated by the contract's schema, except what only the engine can tell). */
export interface StageInput extends CombineInput {
  readonly kind: (typeof pipelineStageKinds)[number];
  readonly query?: string | undefined;
  readonly vector?: readonly number[] | undefined;
  readonly vector_name?: string | undefined;
  readonly multi_vector?: readonly (readonly number[])[] | undefined;
  readonly candidates?: number | undefined;
  readonly sparse_vector?: { readonly indices: readonly number[]; readonly values: readonly number[] } | undefined;
  readonly limit: number;
  readonly filters?: unknown;
  /** For text: RM3 feedback (../feedback-hits.ts). */
  readonly feedback?: FeedbackOptions | undefined;
}

/** A query pipeline request (POST /api/v1/search/query), as the engine runs it. */
export interface PipelineRequest extends CombineInput {
  readonly prefetch: readonly StageInput[];
  readonly rerank?: RerankInput | undefined;
  readonly formula?: FormulaSpec | undefined;
  readonly mmr?:
    { readonly lambda: number; readonly candidates: number; readonly vector_name?: string | undefined } | undefined;
  readonly group_by?:
    | { readonly field: string; readonly group_size: number; readonly limit: number; readonly list?: GroupListMode }
    | undefined;
  readonly offset: number;
  readonly limit: number;
  readonly with_vectors?: unknown;
  readonly with_fields?: unknown;
  readonly explain: boolean;
  readonly signal?: AbortSignal | undefined;
}
