/**
 * Cluster mode's read options and position, as HTTP headers (gRPC takes the same names as metadata). The server reads
 * the request headers on every operation of the catalogue, before its use case runs (a write may wait too: a change
 * that depends on an earlier write made on another node), and puts X-GoDB-Seq on every successful answer in cluster
 * mode. An embedded node checks their values the same way and has nothing to wait for.
 */

/** The place of each shard an answer depends on: `<shard>:<sequence>` pairs, comma-separated (`0:17,5:42`). */
export const sequencePattern = '^\\d{1,3}:\\d{1,15}(,\\d{1,3}:\\d{1,15})*$';

export const consistencyHeader = {
  name: 'X-GoDB-Consistency',
  values: ['local', 'strong'],
  default: 'local',
  description:
    'Cluster mode: how fresh the answer must be. local (the default) answers from what this node has applied; strong first waits until this node has applied everything the replicated log holds now for the user directory and your tenant, so the answer reflects every write acknowledged before, on any node (503 CLUSTER_LAGGING when it cannot catch up within NATS_PUBLISH_TIMEOUT_MS).',
} as const;

export const minSeqHeader = {
  name: 'X-GoDB-Min-Seq',
  pattern: sequencePattern,
  description:
    'Cluster mode: read your own writes on another node. Send the X-GoDB-Seq header of an earlier answer (shard:sequence pairs, comma-separated, e.g. 0:17,5:42); this node first waits until it has applied each shard that far (503 CLUSTER_LAGGING when it cannot within NATS_PUBLISH_TIMEOUT_MS; 400 VALIDATION_FAILED for a sequence the log does not hold).',
} as const;

export const sequenceHeader = {
  name: 'X-GoDB-Seq',
  pattern: sequencePattern,
  description:
    'Cluster mode: how far the answering node had applied the shards this answer depends on (the directory’s and your tenant’s), as shard:sequence pairs (0:17,5:42); after a write, at least that write. Send it back as X-GoDB-Min-Seq to read your write on any node. Absent on an embedded node.',
} as const;

/** The request headers of cluster mode's read options, which every operation takes. */
export const readOptionHeaders = [consistencyHeader, minSeqHeader] as const;
