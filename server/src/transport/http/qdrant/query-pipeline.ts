import { maxSearchLimit } from '@godb/contract';
import { badRequest, unsupported } from './envelope.js';
import type { Call } from './godb-calls.js';
import { vectorNameOf, vectorsOf, type ScoredPoint } from './nearest.js';
import { exactFilter } from './filter-prefilter.js';
import { documentIdOf, pointIdOf } from './point-ids.js';
import { qdrantScores } from './qdrant-scores.js';
import {
  effectiveFilter,
  matchingDocuments,
  readyIndexes,
  selectPayload,
  selectVectors,
  type CollectionView,
} from './point-reads.js';

/** Qdrant's default rrf constant (its scores: Σ 1 / (k + position), position from 0). */
const qdrantRrfK = 2;

type Body = Record<string, unknown>;

/**
 * A level mapped: its pipeline fields, and the vector whose similarity its scores are (a nearest query or a rescore;
 * none after a fusion), so Euclid scores are answered as distances only when they are a Euclid vector's.
 */
interface Mapped {
  readonly fields: Body;
  readonly dense?: boolean;
  readonly last?: string | undefined;
}

/** A point id's vector of the searched name (a query by example). */
export type ExampleVector = (name: string, id: number | string) => Promise<number[]>;

/** Qdrant's default prefetch limit. */
const prefetchLimit = 10;

const isPointId = (v: unknown): v is number | string => typeof v === 'number' || typeof v === 'string';
const listOf = (v: unknown): Body[] =>
  v === undefined || v === null ? [] : Array.isArray(v) ? (v as Body[]) : [v as Body];

/** Whether a points/query body needs GoDB's query pipeline: a prefetch, or MMR. */
export function needsPipeline(body: Body): boolean {
  const q = body.query as { mmr?: unknown } | null | undefined;
  return listOf(body.prefetch).length > 0 || (!!q && typeof q === 'object' && q.mmr !== undefined && q.mmr !== null);
}

/** GoDB filters for a Qdrant filter: passed down as they are where exact, else the ids of the matching points. */
async function godbFilters(call: Call, collection: CollectionView, given: unknown): Promise<unknown> {
  const filter = effectiveFilter(given);
  if (filter === undefined) return undefined;
  const exact = exactFilter(collection.name, filter, readyIndexes(collection));
  if (exact) return exact;
  const ids = (await matchingDocuments(call, collection, filter)).map((d) => d.id);
  // No point allowed: an id no document can have (GoDB's `in` needs one value or more).
  return [{ field: 'id', operator: 'in', value: ids.length > 0 ? ids : ['\u0000none'] }];
}

function denseVector(v: unknown): number[] {
  if (Array.isArray(v) && v.some((x) => Array.isArray(x))) throw unsupported('multivector queries');
  if (!Array.isArray(v) || v.length === 0 || v.some((x) => typeof x !== 'number' || !Number.isFinite(x)))
    throw badRequest('the query vector must be a list of numbers');
  return v as number[];
}

/**
 * Maps Qdrant's universal query (docs/decisions/0063) onto GoDB's query pipeline: each prefetch is a stage (dense,
 * or nested with its own prefetch), `{fusion}`/`{rrf}` fuses a level's prefetches, a vector beside a prefetch
 * rescores its candidates, `{nearest, mmr}` diversifies (λ = 1 − diversity). What has no counterpart answers 400.
 */
class QueryMapper {
  constructor(
    private readonly call: Call,
    private readonly collection: CollectionView,
    private readonly example: ExampleVector,
  ) {}

  /** GoDB document ids of the points used as queries: left out of the answer, as Qdrant leaves out its examples. */
  readonly examples = new Set<string>();

  /** The vector a query (a list, `{nearest}` or a point id) stands for, on vector `name`. */
  async vectorOf(q: unknown, name: string): Promise<number[]> {
    const target = q && typeof q === 'object' && !Array.isArray(q) && 'nearest' in q ? q.nearest : q;
    if (!isPointId(target)) return denseVector(target);
    this.examples.add(documentIdOf(this.collection.name, target));
    return this.example(name, target);
  }

  /** How one level (the request or a prefetch) combines its prefetches, as pipeline fields. */
  async combine(level: Body, where: string): Promise<Mapped> {
    const prefetch = listOf(level.prefetch);
    const stages: Mapped[] = [];
    for (const [i, p] of prefetch.entries()) stages.push(await this.stage(p, `${where}prefetch[${i}]`));
    const q = level.query;
    const bodies = stages.map((m) => m.fields);
    if (q === undefined || q === null) {
      if (stages.length > 1) throw unsupported(`${where}several prefetches without a query to combine them`);
      return { fields: { prefetch: bodies }, last: stages[0]?.last };
    }
    const kind = typeof q === 'object' && !Array.isArray(q) ? Object.keys(q)[0] : undefined;
    if (kind === 'fusion' || kind === 'rrf') {
      const method = kind === 'rrf' ? 'rrf' : (q as { fusion: unknown }).fusion;
      if (method !== 'rrf' && method !== 'dbsf') throw unsupported(`the fusion "${String(method)}" (rrf and dbsf are)`);
      const asked = kind === 'rrf' ? (q as { rrf?: { k?: unknown } }).rrf?.k : undefined;
      if (asked !== undefined && (typeof asked !== 'number' || !(asked >= 1)))
        throw badRequest('rrf.k must be a number of 1 or more');
      // Qdrant scores 1 / (k + position), position from 0, k 2 by default; GoDB's rrf counts ranks from 1, so the
      // same scores come from GoDB's k one lower.
      const k = (asked ?? qdrantRrfK) - 1;
      const weights = kind === 'rrf' ? (q as { rrf?: { weights?: unknown } }).rrf?.weights : undefined;
      if (weights !== undefined) throw unsupported('rrf.weights');
      const fusion = { method, ...(method === 'rrf' && { k }) };
      // Qdrant fuses one prefetch's list too (its scores become 1 / (k + rank), or dbsf's). GoDB refuses a fusion of
      // one stage, so the stage is fused with a copy of itself weighted 0: the same order, the fusion's scores.
      const [only] = bodies;
      if (only && bodies.length === 1)
        return { fields: { prefetch: [only, only], fusion: { ...fusion, weights: [1, 0] } } };
      return { fields: { prefetch: bodies, fusion } };
    }
    const at = where ? `${where.replace(/\.$/, '')}: ` : '';
    if (kind === 'indices') throw unsupported(`${at}sparse vector queries`);
    if (kind !== undefined && kind !== 'nearest') throw unsupported(`${at}the query kind \`${kind}\``);
    if ((q as { mmr?: unknown }).mmr !== undefined && (q as { mmr?: unknown }).mmr !== null)
      throw unsupported(`${where}mmr inside a prefetch`);
    const name = vectorNameOf(this.collection, level.using);
    const vector = await this.vectorOf(q, name);
    if (stages.length === 0)
      return { fields: { prefetch: [{ kind: 'dense', vector, vector_name: name }] }, dense: true, last: name };
    return { fields: { prefetch: bodies, rescore: { vector_name: name, vector } }, last: name };
  }

  /** One prefetch as a pipeline stage. */
  async stage(p: Body, where: string): Promise<Mapped> {
    for (const field of ['score_threshold', 'lookup_from'] as const)
      if (p[field] !== undefined && p[field] !== null) throw unsupported(`${where}.${field}`);
    const limit = typeof p.limit === 'number' ? p.limit : prefetchLimit;
    if (!Number.isInteger(limit) || limit < 1 || limit > maxSearchLimit)
      throw badRequest(`${where}.limit must be an integer from 1 to ${maxSearchLimit}`);
    const filters = await godbFilters(this.call, this.collection, p.filter);
    const base = { limit, ...(filters !== undefined && { filters }) };
    if (p.query === undefined || p.query === null) {
      if (listOf(p.prefetch).length === 0) throw badRequest(`${where} needs a query or a prefetch`);
    }
    const { fields, dense, last } = await this.combine(p, `${where}.`);
    if (dense) return { fields: { ...base, ...(fields.prefetch as Body[])[0] }, last };
    return { fields: { ...base, kind: 'nested', ...fields }, last };
  }
}

/** GoDB's pipeline answer, as the Qdrant routes read it. */
interface PipelineAnswer {
  results: { document_id: string; score: number; metadata?: Record<string, unknown> }[];
  groups?: { value: string; document_ids: string[] }[];
}

export interface GroupOptions {
  readonly field: string;
  readonly size: number;
  readonly limit: number;
}

/** The pipeline request a points/query body stands for (also used by the tests, to ask GoDB the same). */
export async function pipelineRequestOf(
  call: Call,
  collection: CollectionView,
  body: Body,
  example: ExampleVector,
  group?: GroupOptions,
): Promise<{ request: Body; similarity: string | undefined }> {
  const mapper = new QueryMapper(call, collection, example);
  const limit = typeof body.limit === 'number' ? body.limit : 10;
  const offset = typeof body.offset === 'number' ? body.offset : 0;
  // Checked here, under the Qdrant request's names: GoDB's own checks would name its fields (body.limit).
  if (!Number.isInteger(limit) || limit < 0 || limit > maxSearchLimit)
    throw badRequest(`limit must be an integer from 0 to ${maxSearchLimit}`);
  if (!Number.isInteger(offset) || offset < 0 || offset > maxSearchLimit)
    throw badRequest(`offset must be an integer from 0 to ${maxSearchLimit}`);
  const q = body.query as { nearest?: unknown; mmr?: Record<string, unknown> | null } | undefined;
  let combined: Body;
  let mmr: Body | undefined;
  let last: string | undefined;
  if (q && typeof q === 'object' && !Array.isArray(q) && q.mmr !== undefined && q.mmr !== null) {
    if (listOf(body.prefetch).length > 0) throw unsupported('mmr beside a prefetch');
    const diversity = q.mmr.diversity ?? 0.5;
    const candidates = q.mmr.candidates_limit ?? limit + offset;
    if (typeof diversity !== 'number' || diversity < 0 || diversity > 1)
      throw badRequest('mmr.diversity must be a number from 0 to 1');
    if (typeof candidates !== 'number' || !Number.isInteger(candidates) || candidates < 1)
      throw badRequest('mmr.candidates_limit must be a positive integer');
    const name = vectorNameOf(collection, body.using);
    const vector = await mapper.vectorOf({ nearest: q.nearest }, name);
    const pool = Math.min(candidates, maxSearchLimit);
    combined = { prefetch: [{ kind: 'dense', vector, vector_name: name, limit: pool }] };
    mmr = { lambda: 1 - diversity, candidates: pool, vector_name: name };
  } else {
    const mapped = await mapper.combine(body, '');
    // A nearest query alone: its one stage fetches the page (every candidate it may, for groups).
    const stageLimit = Math.min(maxSearchLimit, group ? maxSearchLimit : limit + offset);
    combined = mapped.dense
      ? { prefetch: (mapped.fields.prefetch as Body[]).map((s) => ({ ...s, limit: stageLimit })) }
      : mapped.fields;
    last = mapped.last;
  }
  const filters = withoutExamples(await godbFilters(call, collection, body.filter), mapper.examples);
  const request: Body = {
    primary_table: collection.name,
    ...combined,
    ...(filters !== undefined && { filters }),
    ...(mmr && { mmr }),
    ...(group && {
      group_by: { field: `metadata.${group.field}`, group_size: group.size, limit: group.limit, list: 'each' },
    }),
    offset: group ? 0 : offset,
    limit: Math.max(1, limit),
  };
  // Scores stay similarities when the last step is a vector's (a nearest query or a rescore), not a fusion or MMR.
  return { request, similarity: mmr ? undefined : last };
}

/** GoDB filters with the example points left out beside them (GoDB's filter list is all-must; a group gains a must). */
function withoutExamples(filters: unknown, examples: ReadonlySet<string>): unknown {
  if (examples.size === 0) return filters;
  const leftOut = { field: 'id', operator: 'nin', value: [...examples] };
  if (filters === undefined) return [leftOut];
  if (Array.isArray(filters)) return [...(filters as unknown[]), leftOut];
  const group = filters as { must?: unknown[] };
  return { ...group, must: [...(group.must ?? []), leftOut] };
}

/** Runs the pipeline for a points/query (or groups) body and answers Qdrant's scored points (and groups). */
export async function runQueryPipeline(
  call: Call,
  collection: CollectionView,
  body: Body,
  example: ExampleVector,
  group?: GroupOptions,
): Promise<{ points: ScoredPoint[]; groups?: { id: unknown; hits: ScoredPoint[] }[] }> {
  const { request, similarity } = await pipelineRequestOf(call, collection, body, example, group);
  if (body.limit === 0) return { points: [], ...(group && { groups: [] }) };
  const answer = await call<PipelineAnswer>('search-query', { body: request });
  const euclid = similarity !== undefined && collection.vectors[similarity]?.distance === 'euclidean';
  const threshold = typeof body.score_threshold === 'number' ? body.score_threshold : undefined;
  const hits = qdrantScores(answer.results, euclid, threshold);
  const withPayload = body.with_payload ?? false;
  const withVector = body.with_vector ?? body.with_vectors ?? false;
  const vectors = await vectorsOf(
    call,
    collection,
    hits.map((h) => h.document_id),
    withVector,
  );
  const pointOf = (h: (typeof hits)[number]): ScoredPoint => ({
    id: pointIdOf(collection.name, h.document_id),
    version: 0,
    score: h.score,
    payload: selectPayload(h.metadata ?? {}, withPayload),
    vector: selectVectors(collection, vectors.get(h.document_id), withVector),
  });
  const points = hits.map(pointOf);
  if (!group) return { points };
  const byDoc = new Map(hits.map((h) => [h.document_id, h]));
  const groups = (answer.groups ?? []).flatMap((g) => {
    const members = g.document_ids.flatMap((id) => {
      const hit = byDoc.get(id);
      return hit ? [hit] : [];
    });
    const first = members[0];
    if (!first) return [];
    // The group's value as the payload holds it (GoDB answers it as text).
    const value = valueAt(first.metadata ?? {}, group.field, g.value);
    return [{ id: value, hits: members.map(pointOf) }];
  });
  return { points, groups };
}

/** The payload value (or the list element) whose text is `text`: Qdrant answers a group's id as the value. */
function valueAt(payload: Record<string, unknown>, key: string, text: string): unknown {
  let value: unknown = payload;
  for (const part of key.split('.')) value = (value as Record<string, unknown> | undefined)?.[part];
  const textOf = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v));
  return (Array.isArray(value) ? value : [value]).find((v) => textOf(v) === text) ?? text;
}
