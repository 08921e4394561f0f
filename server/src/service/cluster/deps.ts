/** One node's last progress report, as the cluster's KV bucket `godb-progress` holds it. */
export interface NodeReport {
  readonly node: string;
  /** Where it serves its API (absent from a report of a node older than the report field). */
  readonly address?: string;
  /** The last sequence it applied of each shard, index = shard. */
  readonly applied: readonly number[];
  /** The last sequence it applied of each collection-shard subject it holds. */
  readonly subjects?: Readonly<Record<string, number>>;
  /** Wall-clock milliseconds of the report. */
  readonly at: number;
}

/** One shard stream as JetStream describes it now. */
export interface StreamState {
  readonly shard: number;
  readonly stream: string;
  /** The NATS server leading it, or empty while it has none. */
  readonly leader: string;
  /** The NATS servers holding it, the leader first. */
  readonly replicas: readonly string[];
  readonly first: number;
  readonly last: number;
}

/** What a cluster node knows of the cluster, read when asked (compose/cluster-state.ts reads it). */
export interface ClusterState {
  /** The nodes whose progress key has not expired (heard from within CLUSTER_NODE_GONE_S). */
  readonly reports: readonly NodeReport[];
  readonly streams: readonly StreamState[];
  /** This node's last applied sequence of each shard, index = shard. */
  readonly applied: readonly number[];
  /** A node reported within this long counts as alive (a few of its report intervals). */
  readonly aliveWithinMs: number;
  /** The partitioned collections' placements (decision 0062). */
  readonly collections: readonly CollectionPlacement[];
  /** The replicas being made (decision 0082), with the last sequence of each one's subject. */
  readonly moves: readonly ReplicaMoveState[];
}

/** A replica being made: the shard, the node replaying it and the one it replaces, and its subject's last sequence. */
export interface ReplicaMoveState {
  readonly tenant_id: string;
  readonly collection: string;
  readonly shard: number;
  readonly subject: string;
  readonly from: string;
  readonly to: string;
  readonly started_at: number;
  readonly last_seq: number;
}

/** A partitioned collection's placement, as GET /api/v1/cluster shows it. */
export interface CollectionPlacement {
  readonly tenant_id: string;
  readonly name: string;
  readonly epoch: number;
  readonly replication_factor: number;
  readonly shards: readonly {
    readonly shard: number;
    readonly subject: string;
    readonly replicas: readonly string[];
    /** Serving replicas first, then the nodes moving in. */
    readonly holders: readonly string[];
  }[];
}

export interface ClusterDeps {
  /** This node: its NODE_ID and where it serves its API. */
  readonly self: { readonly id: string; readonly address: string };
  /** Cluster mode: reads the cluster's state now; null for one embedded node. */
  readonly clusterState: (() => Promise<ClusterState>) | null;
  readonly now: () => number;
}
