import { createHash } from 'node:crypto';

/**
 * The shard of a document in a partitioned collection (issue #41, decision 0062): a hash of its id within its
 * collection, modulo the collection's shard count. The collection id is part of the hash so two collections with the
 * same ids do not load the same shards alike. Fixed for the collection's life: changing the count is resharding.
 *
 * @example documentShard('docs', 'a-1', 6); // a number in 0..5, the same on every node
 */
export function documentShard(collectionId: string, documentId: string, shards: number): number {
  const key = `${collectionId}\0${documentId}`;
  let hash = hashes.get(key);
  if (hash === undefined) {
    hash = createHash('sha256').update(key).digest().readUInt32BE(0);
    // Bounded: emptied when full (a fan-out's statistics and counts ask the shard of every document held, per query).
    if (hashes.size >= hashesAtMost) hashes.clear();
    hashes.set(key, hash);
  }
  return hash % shards;
}

/** The hashes of the documents asked lately: a SHA-256 costs microseconds, a lookup a fraction of that. */
const hashes = new Map<string, number>();
const hashesAtMost = 500_000;

/** The key of a collection shard, as placement and the log name it: `<collection>/<shard>`. */
export const collectionShardKey = (collectionId: string, shard: number): string => `${collectionId}/${shard}`;
