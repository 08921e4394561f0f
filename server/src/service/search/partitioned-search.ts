import { createError } from '@godb/contract';
import type { SearchPhase } from '../../engine/search/scope.js';
import type { RequestContext } from '../context.js';
import { mergeCounts, mergeDeletes, mergeScroll } from './partitioned-scans.js';
import { partitionedAutocomplete } from './partitioned-autocomplete.js';
import { partitionedFaceted } from './partitioned-faceted.js';
import { partitionedFuzzy } from './partitioned-fuzzy.js';
import { partitionedHybrid } from './partitioned-hybrid.js';
import { partitionedMultiTable } from './partitioned-multi-table.js';
import {
  askedLimit,
  byScoreThenId,
  partsOf,
  type PartitionedRequest,
  type TenantRequest,
} from './partitioned-request.js';
import { partitionedSmart } from './partitioned-smart.js';
import { partitionedText } from './partitioned-text.js';

/**
 * Cluster mode, partitioned collections (issue #41, decision 0062): the searches the service fans out over the
 * nodes holding a collection's shards. Implemented by the cluster's Partitions; null on an embedded node.
 */
export interface PartitionedSearch {
  isPartitioned(tenantId: string, collection: string): boolean;
  /** The tenant's partitioned collections, by name. */
  partitionedOf(tenantId: string): string[];
  /**
   * Runs `operationId` with `body` on one live holder of each shard (of every partitioned collection of the tenant
   * when `collection` is null); 503 for a shard without one unless partial.
   */
  fanOut(
    tenantId: string,
    collection: string | null,
    operationId: string,
    body: unknown,
    principal: unknown,
    allowPartial: boolean,
    round?: PartitionedRound,
  ): Promise<{
    readonly answers: readonly unknown[];
    readonly missing: readonly number[];
    /** The dfs round: other partitioned collections left out of the statistics (a shard without a live replica). */
    readonly uncounted?: readonly string[];
  }>;
  /** For each partitioned collection of the tenant whose shard of `id` is not held here, its first live replica. */
  holdersElsewhere(tenantId: string, id: string): Promise<string[]>;
  /** Runs an operation (a request by id) on `node`, with the client's Idempotency-Key and consistency. */
  ask(
    node: string,
    operationId: string,
    input: { readonly params?: unknown; readonly query?: unknown; readonly body: unknown },
    principal: unknown,
    carried?: { readonly idempotencyKey?: string | undefined; readonly consistency?: unknown },
  ): Promise<unknown>;
  /** Runs `operationId` here over every shard of the collection this node holds. */
  runHere(operationId: string, body: unknown, principal: unknown, round?: PartitionedRound): Promise<unknown>;
}

/** What a later round of a fanned-out search tells each node (see Partitions' SearchRound). */
export interface PartitionedRound {
  readonly phase?: SearchPhase;
  readonly stats?: unknown;
  readonly words?: readonly string[];
  readonly notes?: readonly string[];
  readonly ids?: readonly string[];
  readonly given?: unknown;
  readonly wholeTenant?: boolean;
}

/** The operations that read a collection's documents, and so meet its partitioning. */
const readsCollection = (id: string) =>
  id.startsWith('search-') || ['count-documents', 'scroll-documents', 'delete-documents', 'graph-query'].includes(id);

/** The kinds answered by a fan-out with an exact merge so far; the others answer 501 on a partitioned collection. */
const fannedOut: ReadonlySet<string> = new Set([
  'search-vector',
  'search-text',
  'search-fuzzy',
  'search-hybrid',
  'search-faceted',
  'search-smart',
  // Its score (1 − distance / radius) is the document's alone: the shards' top-k merge as vector search's do.
  'search-geo',
  'count-documents',
  'scroll-documents',
  'delete-documents',
]);

/**
 * A search of the whole tenant (no `primary_table`) not fanned out yet would read only this node's share of the
 * partitioned collections: 501 naming them, rather than a silently partial answer.
 */
function refuseWholeTenant(partitions: PartitionedSearch, tenantId: string, operationId: string): undefined {
  const read = partitions.partitionedOf(tenantId);
  if (read.length === 0) return undefined;
  const which =
    read.length === 1 ? `the partitioned collection ${read[0]}` : `the partitioned collections ${read.join(', ')}`;
  throw createError('NOT_IMPLEMENTED', {
    operation: `${operationId} without primary_table on a tenant with ${which} (name the collection in primary_table)`,
    issue: 41,
  });
}

interface Hit {
  readonly document_id: string;
  readonly score: number;
}
interface Answer {
  readonly results: readonly Hit[];
  readonly total_hits: number;
  readonly time_taken: number;
  readonly notes?: readonly string[];
  readonly plan?: { readonly exact: boolean };
}

/**
 * The answer of a search on a partitioned collection, merged from its shards' holders; undefined when the
 * operation does not name one (it runs here as always), or runs here for another node's fan-out.
 *
 * @example const merged = await partitionedAnswer(partitions, 'search-vector', body, ctx); // undefined or the answer
 */
export async function partitionedAnswer(
  partitions: PartitionedSearch | null | undefined,
  operationId: string,
  body: unknown,
  ctx: RequestContext,
): Promise<unknown> {
  if (!partitions || ctx.partitionLocal || !ctx.principal || !readsCollection(operationId)) return undefined;
  const given = (body ?? {}) as { primary_table?: unknown; limit?: unknown; allow_partial?: unknown };
  const table = given.primary_table;
  const tenantId = ctx.principal.tenantId;
  if (operationId === 'search-autocomplete') {
    if (partitions.partitionedOf(tenantId).length === 0) return undefined;
    const whole = { partitions, tenantId, table: null, body, principal: ctx.principal, allowPartial: false };
    return partitionedAutocomplete(whole);
  }
  // The graph is gathered from every part by its use case (partitioned-graph.ts), which knows the graph's limits.
  if (operationId === 'search-graph' || operationId === 'graph-query') return undefined;
  // So are a recommendation's rounds (partitioned-recommendations.ts), after its use case's checks.
  if (operationId === 'search-recommendations') return undefined;
  const allowPartial = given.allow_partial === true;
  const principal = ctx.principal;
  if (operationId === 'search-multi-table') {
    const named = (body as { table_names: string[] }).table_names;
    const partitioned = partitions.partitionedOf(tenantId).filter((name) => named.includes(name));
    if (partitioned.length === 0) return undefined;
    const whole: TenantRequest = { partitions, tenantId, table: null, body, principal, allowPartial };
    return partitionedMultiTable(whole, partitioned);
  }
  if (typeof table !== 'string') {
    if (!wholeTenant.has(operationId)) return refuseWholeTenant(partitions, tenantId, operationId);
    if (partitions.partitionedOf(tenantId).length === 0) return undefined;
    const whole: TenantRequest = { partitions, tenantId, table: null, body, principal, allowPartial };
    if (operationId === 'search-hybrid') return partitionedHybrid(whole);
    if (operationId === 'search-faceted') return partitionedFaceted(whole);
    if (operationId === 'search-fuzzy') return mergedSearch(operationId, body, await partitionedFuzzy(whole));
    // Each route it picks is a whole-tenant search of its own (below): the router depends on the request only.
    if (operationId === 'search-smart')
      return partitionedSmart(body, (id, sub) => partitionedAnswer(partitions, id, sub, ctx));
    return mergedParts(whole, operationId);
  }
  if (!partitions.isPartitioned(tenantId, table)) return undefined;
  if (!fannedOut.has(operationId)) {
    throw createError('NOT_IMPLEMENTED', {
      operation: `${operationId} on the partitioned collection ${table}`,
      issue: 41,
    });
  }
  const request: PartitionedRequest = { partitions, tenantId, table, body, principal, allowPartial };
  if (operationId === 'search-hybrid') return partitionedHybrid(request);
  if (operationId === 'search-smart')
    return partitionedSmart(body, (id, sub) => partitionedAnswer(partitions, id, sub, ctx));
  if (operationId === 'search-faceted') return partitionedFaceted(request);
  if (operationId === 'search-fuzzy') return mergedSearch(operationId, body, await partitionedFuzzy(request));
  return mergedParts(request, operationId);
}

/**
 * A search of the whole tenant (no `primary_table`) that reads every partitioned collection: each document is in
 * one part's count (partsOf), and every one is held by some node asked, so the merges are exact. The query pipeline
 * answers 501 on such a tenant (refuseWholeTenant); graph queries and recommendations run their rounds in their use
 * cases (partitioned-graph.ts, partitioned-recommendations.ts).
 */
const wholeTenant: ReadonlySet<string> = new Set([
  'search-text',
  'search-geo',
  'count-documents',
  'scroll-documents',
  // The tenant's model vectors: each part's best `limit` of the documents it counts, so the union holds the
  // tenant's best `limit` (decisions 0087, 0089).
  'search-vector',
  // Both sides as one collection's (partitioned-hybrid.ts), the text side's statistics the whole tenant's.
  'search-hybrid',
  'search-smart',
  // Counts summed from parts that each count the shards asked of them (or the rest of the tenant).
  'search-faceted',
  'search-fuzzy',
]);

/** The search (or scan) answered from every part (partsOf) and merged. */
async function mergedParts(request: TenantRequest, operationId: string): Promise<unknown> {
  const { body } = request;
  const gathered =
    operationId === 'search-text'
      ? await partitionedText(request)
      : { ...(await partsOf(request, operationId)), notes: [] };
  return mergedSearch(operationId, body, gathered);
}

function mergedSearch(
  operationId: string,
  body: unknown,
  { answers, missing, notes }: { answers: readonly unknown[]; missing: readonly number[]; notes: readonly string[] },
): unknown {
  const given = body as { limit?: unknown };
  // The scans take no allow_partial: a shard without a live replica was a 503 already.
  if (operationId === 'count-documents') return mergeCounts(answers);
  if (operationId === 'delete-documents') return mergeDeletes(answers);
  if (operationId === 'scroll-documents')
    return mergeScroll(answers, typeof given.limit === 'number' ? given.limit : 100);
  const limit = askedLimit(body);
  // A text or geo search's parts count the documents of the shards asked of each (Scope.counted): their sum is
  // the collection's; a vector search's count is of its candidates, so the union of the parts' results.
  const summed = operationId === 'search-text' || operationId === 'search-fuzzy' || operationId === 'search-geo';
  return mergeAnswers(answers as Answer[], limit, missing, notes, summed);
}

/**
 * The global top `limit` from each part's answer: each part answered its best `limit` of the documents it counts
 * (decision 0089), each document counted by one part, so the merge is exact (a repeated id is kept once). Ties by id.
 */
function mergeAnswers(
  answers: readonly Answer[],
  limit: number,
  missing: readonly number[],
  more: readonly string[],
  summed: boolean,
): Answer {
  const seen = new Map<string, Hit>();
  for (const answer of answers)
    for (const hit of answer.results) if (!seen.has(hit.document_id)) seen.set(hit.document_id, hit);
  const results = [...seen.values()].sort(byScoreThenId).slice(0, limit);
  const first = answers[0];
  const notes = [...new Set([...answers.flatMap((a) => a.notes ?? []), ...more])];
  return {
    ...first,
    results,
    total_hits: summed ? answers.reduce((sum, a) => sum + a.total_hits, 0) : seen.size,
    time_taken: Math.max(0, ...answers.map((a) => a.time_taken)),
    ...(notes.length > 0 && { notes }),
    ...(first?.plan && { plan: { ...first.plan, exact: answers.every((a) => a.plan?.exact ?? true) } }),
    ...(missing.length > 0 && { missing_shards: [...missing] }),
  } as Answer;
}
