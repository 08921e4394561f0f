import { maxSearchLimit } from '@godb/contract';
import type { PartitionedSearch } from './partitioned-search.js';

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
