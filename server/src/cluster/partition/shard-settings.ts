import { createError } from '@godb/contract';

/** The most shards a collection may be created with: each is a log subject and an index set on rf nodes. */
export const maxCollectionShards = 64;

/** The replication factor when a collection states none: 3, or every node when fewer. */
export const defaultReplicationFactor = 3;

/** A partitioned collection's layout, fixed at creation. */
export interface ShardSettings {
  readonly shards: number;
  readonly replicationFactor: number;
}

const invalid = (field: string, detail: string) =>
  createError('VALIDATION_FAILED', { detail }, { field: `body.${field}` });

/**
 * The shard settings of a collection being created, from its body (`shards`, `replication_factor`), the cluster's
 * default shard count and its node count; 400 naming the field when out of range.
 *
 * @example shardSettings({ shards: 6 }, { defaultShards: 1, nodes: 5 }); // { shards: 6, replicationFactor: 3 }
 */
export function shardSettings(
  body: { readonly shards?: unknown; readonly replication_factor?: unknown },
  cluster: { readonly defaultShards: number; readonly nodes: number },
): ShardSettings {
  const shards = body.shards ?? cluster.defaultShards;
  if (typeof shards !== 'number' || !Number.isInteger(shards) || shards < 1 || shards > maxCollectionShards) {
    throw invalid('shards', `shards must be a whole number from 1 to ${maxCollectionShards}`);
  }
  const nodes = Math.max(1, cluster.nodes);
  const rf = body.replication_factor ?? Math.min(defaultReplicationFactor, nodes);
  if (typeof rf !== 'number' || !Number.isInteger(rf) || rf < 1) {
    throw invalid('replication_factor', 'replication_factor must be a whole number of at least 1');
  }
  if (rf > nodes) {
    throw invalid(
      'replication_factor',
      `replication_factor is ${rf} but the cluster has ${nodes} node${nodes === 1 ? '' : 's'}; state at most ${nodes}`,
    );
  }
  return { shards, replicationFactor: rf };
}
