import type { OperationId } from './catalogue.js';

/** How an operation behaves in cluster mode (see clusterHandling). */
export type ClusterHandling = 'replicated' | 'local' | 'refused';

/**
 * How each operation behaves in cluster mode (NATS_URL set):
 * - `replicated`: its writes go through the replicated log and are applied on every node;
 * - `local`: it only reads this node's copy (or changes nothing the cluster shares, or only the shared snapshot
 *   store, which every node reads), as on one node;
 * - `refused`: a write the log does not carry yet: it answers 501 CLUSTER_NOT_REPLICATED rather than change only
 *   this node's copy, which would make the nodes diverge. Every write goes through the log on an embedded node too,
 *   so such an operation is refused there as well.
 * The mapped type makes an operation added to the catalogue without a decision here a type error.
 */
export const clusterHandling = {
  register: 'replicated',
  'create-user': 'replicated',
  'create-admin-user': 'replicated',
  'add-document': 'replicated',
  'batch-add-documents': 'replicated',
  'import-documents': 'replicated',
  'delete-document': 'replicated',
  'create-collection': 'replicated',
  'delete-collection': 'replicated',
  'update-document': 'replicated',
  'assign-role': 'replicated',
  'update-user': 'replicated',
  'delete-user': 'replicated',
  'create-group': 'replicated',
  'add-group-user': 'replicated',
  'remove-group-user': 'replicated',
  'create-permission': 'replicated',
  'assign-group-permission': 'replicated',
  'create-api-key': 'replicated',
  'revoke-api-key': 'replicated',
  'set-visibility': 'replicated',
  'update-acl': 'replicated',
  'update-engagement': 'replicated',
  'record-engagement': 'replicated',
  'update-collection': 'replicated',
  'delete-documents': 'replicated',
  'refresh-indexes': 'replicated',
  'recluster-indexes': 'replicated',
  'send-email': 'replicated',
  'send-mail': 'replicated',
  'restore-snapshot': 'replicated',

  login: 'local',
  'get-user': 'local',
  'list-users': 'local',
  'list-api-keys': 'local',
  'get-document': 'local',
  'download-document-file': 'local',
  'document-stats': 'local',
  'simple-search': 'local',
  'get-job': 'local',
  // Snapshots are kept in a store every node reads (the S3 bucket, or the JetStream object store): taken from this
  // node's copy, listed, downloaded, uploaded and deleted there, the same for every node, with no operation.
  'list-snapshots': 'local',
  'download-snapshot': 'local',
  'create-snapshot': 'local',
  'delete-snapshot': 'local',
  'upload-snapshot': 'local',
  'list-embedding-models': 'local',
  'create-embedding': 'local',
  'create-quantized-embedding': 'local',
  'search-autocomplete': 'local',
  'search-text': 'local',
  'search-vector': 'local',
  'search-hybrid': 'local',
  'search-query': 'local',
  'search-geo': 'local',
  'search-faceted': 'local',
  'search-fuzzy': 'local',
  'search-smart': 'local',
  'search-multi-table': 'local',
  'search-recommendations': 'local',
  'search-graph': 'local',
  'graph-query': 'local',
  'download-release': 'local',
  'list-collections': 'local',
  'get-collection': 'local',
  'count-documents': 'local',
  'scroll-documents': 'local',
  // The cluster's state as this node sees it: nothing replicated changes; its answer is never marked stale.
  'get-cluster': 'local',
} as const satisfies Record<OperationId, ClusterHandling>;

/** The header a replicated write takes so that a retry of it is applied once (cluster mode). */
export const idempotencyKeyHeader = {
  name: 'Idempotency-Key',
  description:
    "Cluster mode: a key of your choice (1-128 letters, digits and -_.:) naming this write. The same request sent again with the same key within two minutes (JetStream's duplicate window), on any node of the cluster, is applied once and answered as the first one was: retry a 503 CLUSTER_UNAVAILABLE or CLUSTER_LAGGING with the key it was sent with. Keys are scoped by tenant. An embedded node ignores it.",
  pattern: '^[A-Za-z0-9_.:-]{1,128}$',
} as const;

/**
 * Operations served locally whose answers do not come from this node's copy of the replicated data: the embedding
 * models (no data), the release download, and the snapshots kept in the store every node reads. Their answers are
 * never marked stale; every other `local` operation's are (see {@link marksStale}).
 */
const readsNoReplicatedData = new Set<OperationId>([
  'list-embedding-models',
  'create-embedding',
  'create-quantized-embedding',
  'download-release',
  'list-snapshots',
  'download-snapshot',
  'delete-snapshot',
  'upload-snapshot',
  'get-cluster',
]);

/**
 * Whether an operation's answers carry {@link staleHeader} (gRPC: `x-godb-stale` metadata) in cluster mode while
 * the answering node may be stale: the reads of its copy of the replicated data (login included: it reads the
 * directory), every answer of theirs, errors too (a 404 from a node that is behind is as stale as a hit).
 */
export function marksStale(id: OperationId): boolean {
  return clusterHandling[id] === 'local' && !readsNoReplicatedData.has(id);
}

/**
 * The response header of a read answered while the node cannot confirm it is current (cluster mode): declared on
 * every response of the operations for which {@link marksStale} is true. Absent when the node is current, and on an
 * embedded node. `GET /readyz` says why (`cluster.reads_may_be_stale`, `cluster.stale_because`).
 */
export const staleHeader = {
  name: 'X-GoDB-Stale',
  /** Its gRPC metadata key (response metadata, headers or trailers of an error). */
  grpcMetadata: 'x-godb-stale',
  value: 'true',
  description:
    "Cluster mode: present (`true`) when the node that answered could not confirm it is current with the replicated log for the shards this answer depends on (the directory and the caller's tenant): JetStream has not confirmed their last sequences for 10 s, or the stream's leader reaches no majority of its replicas (a majority of the NATS servers down or out of reach), or the node is disconnected from every NATS server, or it stopped applying one of those shards. Writes other nodes made since may be missing from the answer. Absent when the node is current. GET /readyz says why (cluster.stale_because); send X-GoDB-Consistency: strong to get 503 CLUSTER_UNAVAILABLE instead of a possibly stale answer.",
  schema: { type: 'string', enum: ['true'] },
} as const;
