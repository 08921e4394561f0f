import { Type, type Static } from '@sinclair/typebox';
import { Enum } from './common.js';

/** A GoDB node of the cluster, as its progress reports (KV `godb-progress`) say. */
export const ClusterNode = Type.Object({
  id: Type.String({ description: 'The node’s NODE_ID.' }),
  address: Type.String({ description: 'Where the node serves its API: its PUBLIC_URL, or http://HOST:PORT.' }),
  last_seen: Type.Integer({ description: 'Unix seconds of the node’s last progress report.' }),
  alive: Type.Boolean({
    description:
      'Reported within the last 15 s (three report intervals). A node silent longer is listed until CLUSTER_NODE_GONE_S passed, then it is gone.',
  }),
});

/** One node's place in a shard stream. */
export const ShardHolder = Type.Object({
  node: Type.String(),
  applied_seq: Type.Integer({ description: 'The last sequence of the stream this node reported applied.' }),
});

/** One shard stream of the replicated log. */
export const ClusterShard = Type.Object({
  shard: Type.Integer({ description: 'The shard’s number (0 is the directory).' }),
  stream: Type.String({ description: 'Its JetStream stream, godb-shard-NN.' }),
  leader: Type.String({ description: 'The NATS server leading the stream now; empty while it has none.' }),
  replicas: Type.Array(Type.String(), { description: 'The NATS servers holding the stream, its leader first.' }),
  first_seq: Type.Integer({ description: 'The stream’s first sequence (it moves up when the log is truncated).' }),
  last_seq: Type.Integer({ description: 'The stream’s last sequence.' }),
  applied_seq: Type.Integer({ description: 'The last sequence the answering node applied.' }),
  lag: Type.Integer({
    description: 'Operations of the stream the answering node has not applied yet (last_seq − applied_seq).',
  }),
  holders: Type.Array(ShardHolder, {
    description: 'The GoDB nodes that apply this shard (every node today: the log is replicated, not partitioned).',
  }),
});

/**
 * A replica of a partitioned collection's shard being made on a node (issue #41, decision 0082): the node replays
 * the shard's subject, then serves it.
 */
export const ShardMove = Type.Object({
  shard: Type.Integer(),
  from: Type.String({
    description:
      'The holder the new replica replaces: one gone (not heard from within CLUSTER_NODE_GONE_S), or one leaving once the new one serves; empty when it only adds one.',
  }),
  to: Type.String({ description: 'The node taking the replica.' }),
  started_at: Type.Integer({ description: 'Unix seconds.' }),
  tenant_id: Type.String(),
  collection: Type.String(),
  applied_seq: Type.Integer({
    description: 'The last sequence of the shard’s subject the `to` node reported applied (0 before its first report).',
  }),
  last_seq: Type.Integer({ description: 'The last sequence of the shard’s subject in the stream godb-collections.' }),
  lag: Type.Integer({
    description: 'Operations of the shard the `to` node has still to apply (last_seq − applied_seq).',
  }),
});

/** One shard of a partitioned collection and the nodes holding it (issue #41, decision 0062). */
export const CollectionShard = Type.Object({
  shard: Type.Integer({ description: 'The shard’s number, 0 to shards − 1.' }),
  subject: Type.String({
    description: 'Its log subject on the stream godb-collections: godb.cshard.<collection>.<shard>.',
  }),
  replicas: Type.Array(Type.String(), {
    description: 'The GoDB nodes serving it (caught up), in the order searches and acknowledgements ask them.',
  }),
  holders: Type.Array(ShardHolder, {
    description:
      'The nodes applying its subject (the serving replicas, then those moving in), each with the last sequence of it that its progress report gives (0 before its first).',
  }),
});

/** A partitioned collection's placement, as the KV bucket `godb-placement` records it. */
export const ClusterCollection = Type.Object({
  tenant_id: Type.String(),
  name: Type.String(),
  epoch: Type.Integer({
    description:
      'The placement’s epoch: 1 at creation; every step of a move (a replica added, promoted or dropped) makes the next, by compare-and-set.',
  }),
  replication_factor: Type.Integer(),
  shards: Type.Array(CollectionShard),
});

/** What GET /api/v1/cluster answers. */
export const ClusterView = Type.Object({
  mode: Enum(['embedded', 'cluster'] as const, {
    description: 'One embedded node without NATS_URL (no streams), or a cluster of nodes on a NATS JetStream log.',
  }),
  node: Type.String({ description: 'The NODE_ID of the node that answered (applied_seq and lag are its own).' }),
  nodes: Type.Array(ClusterNode, { description: 'The nodes heard from within CLUSTER_NODE_GONE_S, by id.' }),
  shards: Type.Array(ClusterShard, { description: 'The shard streams, by number; none embedded.' }),
  collections: Type.Array(ClusterCollection, {
    description:
      'The partitioned collections (created with `shards` above 1): each shard and the nodes holding it; none embedded.',
  }),
  moves: Type.Array(ShardMove, {
    description:
      'Replicas of partitioned collections’ shards being made (a node joined, or a holder is gone): each with how far its new holder got.',
  }),
});
export type ClusterView = Static<typeof ClusterView>;
