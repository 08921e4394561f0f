import { maxSearchLimit } from '@godb/contract';
import type { PartitionedRound, PartitionedSearch } from './partitioned-search.js';

/** A search of a partitioned collection as its fan-out takes it (partitioned-*.ts). */
export interface PartitionedRequest {
  readonly partitions: PartitionedSearch;
  readonly tenantId: string;
  /** The partitioned collection searched (the body's `primary_table`). */
  readonly table: string;
  /** The operation's validated body, sent to every node asked. */
  readonly body: unknown;
  readonly principal: unknown;
  /** `allow_partial: true`: a shard without a live replica is left out (named) rather than a 503. */
  readonly allowPartial: boolean;
}

/** A search of a partitioned collection, or (table null) of the whole tenant holding partitioned collections. */
export type TenantRequest = Omit<PartitionedRequest, 'table'> & { readonly table: string | null };

/**
 * Every part of a fanned-out search: one live replica of each shard of the collection (table null: of every
 * partitioned collection of the tenant, each node counting the shards asked of it, and this node's own part for the
 * rest of the tenant, which every node holds — so every document is counted once).
 */
export async function partsOf(
  request: TenantRequest,
  operationId: string,
  round: PartitionedRound = {},
): Promise<{ answers: readonly unknown[]; missing: readonly number[]; uncounted?: readonly string[] }> {
  const { partitions, tenantId, table, body, principal, allowPartial } = request;
  if (table !== null) return partitions.fanOut(tenantId, table, operationId, body, principal, allowPartial, round);
  // Whole-tenant: each part counts what the fan-out tells it, even when the body names a collection.
  const whole = { ...round, wholeTenant: true };
  const there = partitions.fanOut(tenantId, null, operationId, body, principal, allowPartial, whole);
  const [fanned, here] = await Promise.all([there, partitions.runHere(operationId, body, principal, whole)]);
  return { ...fanned, answers: [...fanned.answers, here] };
}

/** Document ids in code-unit order: how merged answers break ties, the same on every node. */
export const byId = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Hits best first, ties by id (byId). */
export const byScoreThenId = (
  a: { readonly score: number; readonly document_id: string },
  b: { readonly score: number; readonly document_id: string },
): number => b.score - a.score || byId(a.document_id, b.document_id);

/** The number of results a search's body asks, clamped as its use case clamps it (default 10). */
export function askedLimit(body: unknown): number {
  const limit = (body as { limit?: unknown }).limit;
  return Math.min(Math.max(1, typeof limit === 'number' ? limit : 10), maxSearchLimit);
}
