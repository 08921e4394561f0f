import { StorageType, type JetStreamManager } from '@nats-io/jetstream';
import { nanos } from '@nats-io/transport-node';
import { maxOperationBytes } from '../log/shard-streams.js';
import { collectionToken } from './placement-records.js';

/** The one stream of every partitioned collection's shards (decision 0062: subjects, not a stream per shard). */
export const collectionStream = 'godb-collections';

/** The subject of one collection shard: `godb.cshard.<collection-b64>.<shard>`. */
export const shardSubjectOf = (tenantId: string, name: string, shard: number): string =>
  `godb.cshard.${collectionToken(tenantId, name)}.${shard}`;

/**
 * Makes sure the stream of collection shards exists (file-backed, replicated as the shard streams, the same
 * duplicate window and largest message). Every node may make it at once: the same settings are idempotent.
 *
 * @example await ensureCollectionStream(jsm, 3);
 */
export async function ensureCollectionStream(jsm: JetStreamManager, replicas: number): Promise<void> {
  const exists = await jsm.streams.info(collectionStream).catch(() => null);
  if (exists) return;
  await jsm.streams.add({
    name: collectionStream,
    subjects: ['godb.cshard.>'],
    storage: StorageType.File,
    num_replicas: replicas,
    duplicate_window: nanos(120_000),
    max_msg_size: maxOperationBytes,
  });
}
