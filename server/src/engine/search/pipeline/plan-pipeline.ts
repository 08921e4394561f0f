import { createError, defaultRrfK, maxPipelineDepth, unsupportedStageKinds } from '@godb/contract';
import type { Collections } from '../../collections/collections.js';
import { parseFilters, type FilterGroup } from '../filters.js';
import type { Scope } from '../scope.js';
import type { FeedbackOptions } from '../../text/rm3-feedback.js';
import { planSparse, type SparseStagePlan } from '../../sparse/sparse-stage.js';
import { compileFormula, type Formula } from './formula.js';
import type { FusionSpec } from './fusion.js';
import { listFields, listRefused } from './group-by.js';
import type { CombineInput, PipelineRequest, StageInput } from './pipeline-input.js';
import { resolveTarget, type VectorTarget } from './vector-targets.js';
import { candidatesPerVector, planMultiVector, type MultiVectorQuery } from '../../multi-vectors/plan-multi-vector.js';

/** A stage checked and ready to run: its path in the request, its scope (the request's and its own filters). */
export type StagePlan = { readonly path: string; readonly limit: number; readonly scope: Scope } & (
  | { readonly kind: 'text'; readonly query: string; readonly feedback?: FeedbackOptions | undefined }
  | {
      readonly kind: 'dense';
      readonly target: VectorTarget;
      readonly query?: string | undefined;
      readonly vector?: readonly number[] | undefined;
    }
  | { readonly kind: 'filter' }
  | { readonly kind: 'nested'; readonly combine: CombinePlan }
  | { readonly kind: 'multi_vector'; readonly query: MultiVectorQuery; readonly perVector: number }
  | SparseStagePlan
);

/** How a list of stages becomes one: one stage as it is, a fusion, or a rescore by a vector. */
export interface CombinePlan {
  /** Where its fusion or rescore is in the request: `body` or a nested stage's path. */
  readonly path: string;
  readonly stages: readonly StagePlan[];
  readonly how:
    | { readonly kind: 'single' }
    | { readonly kind: 'fusion'; readonly spec: FusionSpec; readonly defaulted: boolean }
    | {
        readonly kind: 'rescore';
        readonly target: VectorTarget;
        readonly query?: string | undefined;
        readonly vector?: readonly number[] | undefined;
        /** A rescore by exact MaxSim on a multi-vector (docs/decisions/0059). */
        readonly multi?: MultiVectorQuery | undefined;
      };
}

/** The whole request checked: nothing runs before every stage, vector name and option is known to be valid. */
export interface PipelinePlan {
  readonly combine: CombinePlan;
  readonly formula?: Formula | undefined;
  readonly mmr?: { readonly lambda: number; readonly candidates: number; readonly target: VectorTarget } | undefined;
  readonly groupBy?: PipelineRequest['group_by'];
  /** Own vectors to answer (with_vectors), by name. */
  readonly withVectors: readonly { readonly name: string; readonly target: VectorTarget }[];
  /** Sparse vectors to answer (with_vectors), by name. */
  readonly withSparse: readonly string[];
  /** Fields to answer: all (true) or these. */
  readonly withFields: true | readonly string[] | undefined;
}

const invalid = (field: string, detail: string) => createError('VALIDATION_FAILED', { detail }, { field });

/** Which request fields each runnable kind reads; any other one given is refused, naming it. */
const fieldsOf: Readonly<Record<StagePlan['kind'], readonly string[]>> = {
  text: ['query', 'feedback'],
  dense: ['query', 'vector', 'vector_name'],
  filter: [],
  nested: ['prefetch', 'fusion', 'rescore'],
  multi_vector: ['vector_name', 'multi_vector', 'candidates'],
  sparse: ['vector_name', 'sparse_vector'],
};
const stageFields = [
  'query',
  'vector',
  'vector_name',
  'prefetch',
  'fusion',
  'rescore',
  'sparse_vector',
  'multi_vector',
  'candidates',
  'feedback',
] as const;

/** The scope with a stage's filters added to the request's (both must match). */
function withFilters(scope: Scope, raw: unknown, path: string): Scope {
  const own = parseFilters(raw, path);
  if (!own) return scope;
  const filters: FilterGroup = scope.filters ? { must: [scope.filters, own], should: [], mustNot: [] } : own;
  return { ...scope, filters };
}

/**
 * Checks a pipeline request and resolves what only the engine knows (the collection's vectors): unknown or unbuilt
 * stage kinds, fields a kind does not read, nesting deeper than maxPipelineDepth, a fusion over one stage, a fusion
 * beside a rescore, weights that do not match the stages, vector names the collection does not declare and a
 * group_by on a list field without `list` are all refused with a 400 (501 for an unbuilt kind) naming the field.
 */
export class PipelinePlanner {
  readonly #collections: Collections;
  readonly #scope: Scope;

  constructor(collections: Collections, scope: Scope) {
    this.#collections = collections;
    this.#scope = scope;
  }

  plan(request: PipelineRequest): PipelinePlan {
    if (this.#scope.table !== undefined)
      this.#collections.require(this.#tenant, this.#scope.table, 'body.primary_table');
    const combine = this.#combine(request, 'body', 'body', 0, this.#scope);
    const group = request.group_by;
    if (group && listFields.has(group.field) && !group.list) throw listRefused(group.field);
    return {
      combine,
      formula: request.formula && compileFormula(request.formula, 'body.formula', this.#scope.now),
      mmr: request.mmr && {
        lambda: request.mmr.lambda,
        candidates: request.mmr.candidates,
        target: this.#target({ vector_name: request.mmr.vector_name }, 'body.mmr'),
      },
      groupBy: group,
      ...this.#withVectors(request.with_vectors),
      withFields: this.#withFields(request.with_fields),
    };
  }

  get #tenant() {
    return this.#scope.viewer.tenantId;
  }

  #target(input: Parameters<typeof resolveTarget>[3], path: string): VectorTarget {
    return resolveTarget(this.#collections, this.#tenant, this.#scope.table, input, path);
  }

  /** A list of stages and how they combine; `level` is the level of the node holding them (the request: 0). */
  #combine(node: CombineInput, path: string, listPath: string, level: number, scope: Scope): CombinePlan {
    const given = node.prefetch ?? [];
    if (given.length === 0) throw invalid(`${listPath}.prefetch`, `${listPath}.prefetch needs one stage or more.`);
    const stages = given.map((stage, i) =>
      this.#stage(stage as StageInput, `${listPath}.prefetch[${i}]`, level + 1, scope),
    );
    const { fusion, rescore } = node;
    if (fusion && rescore)
      throw invalid(`${path}.rescore`, `${path} gives both fusion and rescore: give at most one of them.`);
    if (rescore?.multi_vector !== undefined) {
      const at = `${path}.rescore`;
      if (rescore.vector !== undefined || rescore.query !== undefined)
        throw invalid(
          `${at}.multi_vector`,
          `${at} gives multi_vector with ${rescore.vector !== undefined ? 'vector' : 'query'}: give one of them.`,
        );
      const multi = planMultiVector(this.#collections, this.#tenant, this.#scope.table, rescore, at);
      const target: VectorTarget = { kind: 'own', space: multi.space };
      return { path, stages, how: { kind: 'rescore', target, multi } };
    }
    if (rescore) {
      const target = this.#target(rescore, `${path}.rescore`);
      return { path, stages, how: { kind: 'rescore', target, query: rescore.query, vector: rescore.vector } };
    }
    if (stages.length === 1) {
      if (fusion)
        throw invalid(
          `${path}.fusion`,
          `${path}.fusion needs two stages or more in ${listPath}.prefetch, and it has one: add a stage or drop the fusion.`,
        );
      return { path, stages, how: { kind: 'single' } };
    }
    const weights = fusion?.weights ?? stages.map(() => 1);
    if (weights.length !== stages.length)
      throw invalid(
        `${path}.fusion.weights`,
        `${path}.fusion.weights has ${weights.length} weights for ${stages.length} stages: give one per stage, in order.`,
      );
    const spec: FusionSpec = { method: fusion?.method ?? 'rrf', k: fusion?.k ?? defaultRrfK, weights };
    return { path, stages, how: { kind: 'fusion', spec, defaulted: !fusion } };
  }

  #stage(stage: StageInput, path: string, level: number, parent: Scope): StagePlan {
    const kind = stage.kind;
    if ((unsupportedStageKinds as readonly string[]).includes(kind))
      throw createError(
        'NOT_IMPLEMENTED',
        { operation: `A ${kind.replace('_', '-')} stage (${path}.kind)`, issue: 42 },
        { field: `${path}.kind` },
      );
    if (!(kind in fieldsOf))
      throw invalid(
        `${path}.kind`,
        `${path}.kind is ${JSON.stringify(kind)}: expected text, dense, sparse, multi_vector, filter or nested.`,
      );
    const runnable = kind as StagePlan['kind'];
    for (const field of stageFields)
      if (stage[field] !== undefined && !fieldsOf[runnable].includes(field))
        throw invalid(`${path}.${field}`, `${path}.${field} is not read by a ${kind} stage: remove it.`);
    const scope = withFilters(parent, stage.filters, `${path}.filters`);
    const base = { path, limit: stage.limit, scope };
    if (runnable === 'text') {
      if (stage.query === undefined || stage.query.trim() === '')
        throw createError('QUERY_REQUIRED', {}, { field: `${path}.query` });
      return { ...base, kind: 'text', query: stage.query, feedback: stage.feedback };
    }
    if (runnable === 'dense') {
      if ((stage.query === undefined || stage.query.trim() === '') && stage.vector === undefined)
        throw invalid(`${path}.query`, `${path} needs query (text to embed) or vector.`);
      const target = this.#target(stage, path);
      return { ...base, kind: 'dense', target, query: stage.query, vector: stage.vector };
    }
    if (runnable === 'filter') return { ...base, kind: 'filter' };
    if (runnable === 'multi_vector') {
      const query = planMultiVector(this.#collections, this.#tenant, this.#scope.table, stage, path);
      return { ...base, kind: 'multi_vector', query, perVector: candidatesPerVector(stage.candidates, stage.limit) };
    }
    if (runnable === 'sparse')
      return { ...base, ...planSparse(this.#collections, this.#tenant, this.#scope.table, stage, path) };
    if (level >= maxPipelineDepth)
      throw invalid(
        `${path}.prefetch`,
        `${path} is at level ${level}: pipelines nest at most ${maxPipelineDepth} levels, so it cannot hold a prefetch of its own.`,
      );
    return { ...base, kind: 'nested', combine: this.#combine(stage, path, path, level, scope) };
  }

  #withVectors(raw: unknown): Pick<PipelinePlan, 'withVectors' | 'withSparse'> {
    if (raw === undefined || raw === false) return { withVectors: [], withSparse: [] };
    const table = this.#scope.table;
    const collection = table === undefined ? undefined : this.#collections.require(this.#tenant, table);
    if (!collection)
      throw invalid(
        'body.with_vectors',
        'body.with_vectors needs body.primary_table: the collection whose vectors to answer.',
      );
    const own = Object.keys(collection.vectors).filter((name) => collection.vectors[name]!.model === undefined);
    const sparse = Object.keys(collection.sparse_vectors ?? {});
    const names =
      raw === true
        ? [...own, ...sparse]
        : Array.isArray(raw) && raw.every((x) => typeof x === 'string')
          ? raw
          : undefined;
    if (!names) throw invalid('body.with_vectors', 'body.with_vectors must be true or a list of vector names.');
    const withVectors: PipelinePlan['withVectors'][number][] = [];
    const withSparse: string[] = [];
    names.forEach((name, i) => {
      if (sparse.includes(name)) {
        withSparse.push(name);
        return;
      }
      const settings = collection.vectors[name];
      if (!settings || settings.model !== undefined)
        throw invalid(
          `body.with_vectors[${i}]`,
          `body.with_vectors[${i}]: collection ${collection.name} ${settings ? `fills vector "${name}" with a model for each chunk` : `declares no vector "${name}"`}; expected one of its own vectors: ${[...own, ...sparse].join(', ') || '(none)'}.`,
        );
      withVectors.push({ name, target: { kind: 'own', space: { collection: collection.name, name, settings } } });
    });
    return { withVectors, withSparse };
  }

  #withFields(raw: unknown): PipelinePlan['withFields'] {
    if (raw === undefined || raw === false) return undefined;
    if (raw === true) return true;
    if (Array.isArray(raw) && raw.every((x) => typeof x === 'string')) return raw as string[];
    throw invalid('body.with_fields', 'body.with_fields must be true or a list of field names.');
  }
}
