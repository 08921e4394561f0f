import { monitorEventLoopDelay } from 'node:perf_hooks';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/** The node's derived state as /readyz and /metrics show it (filled from the engine by the composition root). */
export interface NodeStatus {
  /** Indexes loading or catching up now; tenant data (ids, collection names) is never shown. */
  readonly loading: readonly {
    /** A vector index, or a tenant's in-memory BM25 index (`space` is then `text`). */
    readonly kind: 'vector_index' | 'text_index';
    /** A model's name, or `collection` for a collection's vector; `text` for a text index. */
    readonly space: string;
    /** `replay`: its last checkpoint plus the writes after it; `rebuild`: from the store. */
    readonly how: 'replay' | 'rebuild';
    readonly done: number;
    readonly total: number;
  }[];
  /**
   * Since start: indexes opened from a current file, replayed from a checkpoint, rebuilt; saves; evictions; files
   * found unreadable (they differ from what was saved: replayed or rebuilt instead).
   */
  readonly vectorIndexes: {
    readonly file: number;
    readonly replay: number;
    readonly rebuild: number;
    readonly checkpoints: number;
    readonly evictions: number;
    readonly unreadable: number;
    /** Now: vectors stored but not in their HNSW graphs yet (searched exactly meanwhile), over every index. */
    readonly lag: number;
  };
  /**
   * The search workers (SEARCH_THREADS), when there are: how many, and since start the searches they answered,
   * those they handed back because a write had committed since the view (stale), and workers replaced; the workers
   * building a text index now (they take no search meanwhile).
   */
  readonly searchPool?: {
    readonly threads: number;
    readonly building: number;
    readonly answered: number;
    readonly stale: number;
    readonly replaced: number;
  };
  /**
   * Since start: in-memory text (BM25) indexes read back from a checkpoint and caught up, built from the store,
   * checkpoints saved, and checkpoint files found unreadable (built from the store instead).
   */
  readonly textIndexes: {
    readonly checkpoint: number;
    readonly rebuild: number;
    readonly saves: number;
    readonly unreadable: number;
  };
  /** Bytes held per kind of derived state, with its budget (null: none); computed when asked (it walks indexes). */
  memory(): readonly { readonly kind: string; readonly bytes: number; readonly budget: number | null }[];
  /** Cluster mode: this node's progress through the replicated log; absent on an embedded node. */
  readonly cluster?: ClusterStatus;
}

/** Where a cluster node is in the replicated log. */
export interface ClusterStatus {
  readonly node: string;
  /** The operations of the log this node applied, over every shard (the sum of each shard's last applied sequence). */
  readonly applied: number;
  /** Operations in the log this node has not applied yet, over every shard, as of the last messages it saw. */
  readonly lag: number;
  /** The same, per shard stream. */
  readonly shards: readonly {
    readonly shard: number;
    readonly applied: number;
    readonly lag: number;
    /** Set while its next operation waits for the directory shard (0) to reach this sequence. */
    readonly waitingFor?: number;
  }[];
  /** Set while the node cannot apply the next operation of a shard for a reason of its own (its disk): it retries it. */
  readonly halted?: { readonly shard: number; readonly seq: number; readonly reason: string };
  /**
   * Set while a NATS server that joined or came back after the node started fails its version checks: the node
   * refuses writes (503 CLUSTER_NOT_DURABLE) and is not ready.
   */
  readonly refusingWrites?: { readonly server: string; readonly version: string | null; readonly reason: string };
  /**
   * Set while the node cannot confirm it is current on some shards (see NatsLog.staleness): its reads of them are
   * marked X-GoDB-Stale, and /readyz says why. It stays ready: reads go on.
   */
  readonly stale?: { readonly reason: string; readonly shards: readonly number[] };
  /** Set while the node catches up with what the log held when it started (its API answers 503 until then). */
  readonly startingUp?: { readonly applied: number; readonly target: number };
  /** Whether this node holds the lease on the cluster's singleton work (snapshots, truncation) now. */
  readonly leaseHolder?: boolean;
  /** The newest verified cluster snapshot this node knows of (a new or wiped node starts from it). */
  readonly latestSnapshot?: { readonly id: string; readonly seq: number; readonly shards: readonly number[] };
  /** As lease holder: the sequence below which this node last truncated each shard it truncated, by shard. */
  readonly truncatedBefore?: Readonly<Record<number, number>>;
  /** The cluster snapshot this node restored at start-up (it was new, wiped, or the log was truncated past it). */
  readonly restoredFrom?: { readonly id: string; readonly seq: number; readonly shards: readonly number[] };
}

export const emptyStatus = (): NodeStatus => ({
  loading: [],
  vectorIndexes: { file: 0, replay: 0, rebuild: 0, checkpoints: 0, evictions: 0, unreadable: 0, lag: 0 },
  textIndexes: { checkpoint: 0, rebuild: 0, saves: 0, unreadable: 0 },
  memory: () => [],
});

/** Live figures the metrics read at each scrape. */
export interface MetricSources {
  /** API requests holding an in-flight slot. */
  readonly inFlight: () => number;
  readonly status: () => NodeStatus;
}

/**
 * Prometheus metrics of one server instance (its own registry, so several instances can live in one process).
 * Call `close()` when the server closes: the event-loop monitor samples until then.
 */
export function createMetrics(sources: MetricSources) {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'godb_' });
  const requests = new Counter({
    name: 'godb_http_requests_total',
    help: 'HTTP requests answered, by method, route and status.',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'godb_http_request_duration_seconds',
    help: 'Time to answer HTTP requests, by method and route.',
    labelNames: ['method', 'route'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10],
    registers: [registry],
  });
  new Gauge({
    name: 'godb_http_requests_in_flight',
    help: 'API requests being served now (MAX_CONCURRENT_OPERATIONS caps it; beyond it 503).',
    registers: [registry],
    collect() {
      this.set(sources.inFlight());
    },
  });
  new Gauge({
    name: 'godb_memory_bytes',
    help: 'Memory held by derived state, by kind (vector_index, vector_copies, text_index, row_cache), estimated.',
    labelNames: ['kind'] as const,
    registers: [registry],
    collect() {
      for (const m of sources.status().memory()) {
        this.set({ kind: m.kind }, m.bytes);
        if (m.budget !== null) budgets.set({ kind: m.kind }, m.budget);
      }
    },
  });
  // Set by the collect above (registered first, so one walk of the indexes serves both).
  const budgets = new Gauge({
    name: 'godb_memory_budget_bytes',
    help: 'Budget of each kind of derived state (least recently used evicted beyond it); absent when unbounded.',
    labelNames: ['kind'] as const,
    registers: [registry],
  });
  new Gauge({
    name: 'godb_vector_indexes_opened',
    help: 'Vector indexes brought into memory since start, by how: file (current), replay (checkpoint + later writes), rebuild (from the store).',
    labelNames: ['how'] as const,
    registers: [registry],
    collect() {
      const v = sources.status().vectorIndexes;
      for (const how of ['file', 'replay', 'rebuild'] as const) this.set({ how }, v[how]);
    },
  });
  new Gauge({
    name: 'godb_search_pool',
    help: 'Search workers (SEARCH_THREADS; absent without): threads, those building a text index now; since start searches answered, handed back stale, workers replaced.',
    labelNames: ['what'] as const,
    registers: [registry],
    collect() {
      const pool = sources.status().searchPool;
      if (!pool) return;
      for (const what of ['threads', 'building', 'answered', 'stale', 'replaced'] as const)
        this.set({ what }, pool[what]);
    },
  });
  new Gauge({
    name: 'godb_vector_index_checkpoints',
    help: 'Vector index files saved since start (checkpoints, evictions, shutdown).',
    registers: [registry],
    collect() {
      this.set(sources.status().vectorIndexes.checkpoints);
    },
  });
  new Gauge({
    name: 'godb_vector_index_evictions',
    help: 'Vector indexes that left memory under VECTOR_INDEX_MEMORY_MB since start.',
    registers: [registry],
    collect() {
      this.set(sources.status().vectorIndexes.evictions);
    },
  });
  new Gauge({
    name: 'godb_index_files_unreadable',
    help: 'Index files found unreadable since start (a vector index file whose length or CRC-32 differs from what was saved, a text checkpoint that fails its checksum): built from the store instead.',
    labelNames: ['kind'] as const,
    registers: [registry],
    collect() {
      const status = sources.status();
      this.set({ kind: 'vector_index' }, status.vectorIndexes.unreadable);
      this.set({ kind: 'text_index' }, status.textIndexes.unreadable);
    },
  });
  new Gauge({
    name: 'godb_vector_index_lag',
    help: 'Vectors stored but not yet in their HNSW graphs (inserted in the background after writes and imports; searched exactly meanwhile).',
    registers: [registry],
    collect() {
      this.set(sources.status().vectorIndexes.lag);
    },
  });
  new Gauge({
    name: 'godb_vector_indexes_loading',
    help: 'Vector indexes loading or catching up now (vector queries for them wait up to INDEX_WAIT_MS).',
    registers: [registry],
    collect() {
      this.set(sources.status().loading.filter((l) => l.kind === 'vector_index').length);
    },
  });
  new Gauge({
    name: 'godb_text_indexes_loading',
    help: 'In-memory text indexes loading now, from a checkpoint or from the store (text queries for them are ranked through FTS5 meanwhile, with the same scores).',
    registers: [registry],
    collect() {
      this.set(sources.status().loading.filter((l) => l.kind === 'text_index').length);
    },
  });
  new Gauge({
    name: 'godb_text_indexes_opened',
    help: 'In-memory text indexes brought into memory since start, by how: checkpoint (read back, then caught up), rebuild (from the store).',
    labelNames: ['how'] as const,
    registers: [registry],
    collect() {
      const t = sources.status().textIndexes;
      for (const how of ['checkpoint', 'rebuild'] as const) this.set({ how }, t[how]);
    },
  });
  new Gauge({
    name: 'godb_text_index_checkpoints',
    help: 'In-memory text index checkpoints saved since start (in the background, and on shutdown).',
    registers: [registry],
    collect() {
      this.set(sources.status().textIndexes.saves);
    },
  });
  new Gauge({
    name: 'godb_cluster_applied_sequence',
    help: 'Cluster mode: the last sequence of each shard stream of the replicated log this node applied (absent on an embedded node).',
    labelNames: ['shard'],
    registers: [registry],
    collect() {
      this.reset();
      for (const shard of sources.status().cluster?.shards ?? []) this.set({ shard: shard.shard }, shard.applied);
    },
  });
  new Gauge({
    name: 'godb_cluster_lag_operations',
    help: 'Cluster mode: operations of each shard stream this node has not applied yet (reads of its tenants here may miss them).',
    labelNames: ['shard'],
    registers: [registry],
    collect() {
      this.reset();
      for (const shard of sources.status().cluster?.shards ?? []) this.set({ shard: shard.shard }, shard.lag);
    },
  });
  new Gauge({
    name: 'godb_cluster_halted',
    help: 'Cluster mode: 1 while this node cannot apply the next operation of the log for a reason of its own (its disk) and retries it, else 0.',
    registers: [registry],
    collect() {
      const cluster = sources.status().cluster;
      if (cluster) this.set(cluster.halted ? 1 : 0);
    },
  });
  new Gauge({
    name: 'godb_cluster_reads_may_be_stale',
    help: 'Cluster mode: 1 while this node cannot confirm it is current with the replicated log (a majority of the NATS servers down or out of reach: its reads answer with X-GoDB-Stale: true), else 0.',
    registers: [registry],
    collect() {
      const cluster = sources.status().cluster;
      if (cluster) this.set(cluster.stale ? 1 : 0);
    },
  });
  new Gauge({
    name: 'godb_cluster_catching_up',
    help: 'Cluster mode: 1 while this node, just started, applies the log up to its last sequence as of the start and answers the API with 503 CLUSTER_CATCHING_UP, else 0.',
    registers: [registry],
    collect() {
      const cluster = sources.status().cluster;
      if (cluster) this.set(cluster.startingUp ? 1 : 0);
    },
  });
  new Gauge({
    name: 'godb_cluster_lease_holder',
    help: "Cluster mode: 1 while this node holds the lease on the cluster's singleton work (snapshots, log truncation), else 0.",
    registers: [registry],
    collect() {
      const cluster = sources.status().cluster;
      if (cluster?.leaseHolder !== undefined) this.set(cluster.leaseHolder ? 1 : 0);
    },
  });
  new Gauge({
    name: 'godb_cluster_snapshot_sequence',
    help: 'Cluster mode: the sequence of each shard stream the newest verified cluster snapshot this node knows of includes (as lease holder, or restored at start-up).',
    labelNames: ['shard'],
    registers: [registry],
    collect() {
      this.reset();
      const cluster = sources.status().cluster;
      const shards = cluster?.latestSnapshot?.shards ?? cluster?.restoredFrom?.shards ?? [];
      for (const [shard, seq] of shards.entries()) this.set({ shard }, seq);
    },
  });
  // A blocked event loop delays every request and timer (deadlines, shutdown): this shows it, per scrape interval.
  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  // The quantiles' collect sets the maximum too, so it is registered first and the two describe one interval.
  new Gauge({
    name: 'godb_event_loop_delay_seconds',
    help: 'Event-loop delay since the previous scrape, by quantile.',
    labelNames: ['quantile'] as const,
    registers: [registry],
    collect() {
      // An interval with no sample (a scrape right after another) reads 0, not the empty histogram's sentinel.
      const seconds = (ns: number) => (loop.count > 0 ? ns / 1e9 : 0);
      this.set({ quantile: '0.5' }, seconds(loop.percentile(50)));
      this.set({ quantile: '0.99' }, seconds(loop.percentile(99)));
      maxDelay.set(seconds(loop.max));
      loop.reset();
    },
  });
  const maxDelay = new Gauge({
    name: 'godb_event_loop_delay_max_seconds',
    help: 'Longest event-loop delay since the previous scrape.',
    registers: [registry],
  });
  return { registry, requests, duration, close: () => loop.disable() };
}

export type Metrics = ReturnType<typeof createMetrics>;
