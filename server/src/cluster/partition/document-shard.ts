import { createHash } from 'node:crypto';

/**
 * The shard of a document in a partitioned collection (issue #41, decision 0062): a hash of its id within its
 * collection, modulo the collection's shard count. The collection id is part of the hash so two collections with the
 * same ids do not load the same shards alike. Fixed for the collection's life: changing the count is resharding.
 *
 * @example documentShard('docs', 'a-1', 6); // a number in 0..5, the same on every node
 */
export function documentShard(collectionId: string, documentId: string, shards: number): number {
  return createHash('sha256').update(collectionId).update('\0').update(documentId).digest().readUInt32BE(0) % shards;
}

/** The key of a collection shard, as placement and the log name it: `<collection>/<shard>`. */
export const collectionShardKey = (collectionId: string, shard: number): string => `${collectionId}/${shard}`;
