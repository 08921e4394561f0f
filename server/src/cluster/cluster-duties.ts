import type { ObjectStore } from '../engine/files/object-store.js';
import type { ClusterSnapshots, VerifiedSnapshot } from './cluster-snapshots.js';
import { KeptArchives } from './kept-archives.js';
import { Lease } from './lease.js';
import type { NatsLog } from './log/nats-log.js';
import { ClusterProgress } from './progress.js';
import type { ClusterLogger } from './start-retries.js';

export interface ClusterDutiesOptions {
  readonly log: NatsLog;
  readonly nodeId: string;
  /** Where this node serves its API, reported with its progress (GET /api/v1/cluster lists it). */
  readonly address?: string;
  /** CLUSTER_NODE_GONE_S, in milliseconds. */
  readonly goneAfterMs: number;
  /** CLUSTER_LEASE_TTL_MS. */
  readonly leaseTtlMs: number;
  /** The cluster snapshots; null: this node takes none (and so never truncates the log). */
  readonly snapshots: ClusterSnapshots | null;
  /**
   * The store of the snapshots users take, where restores keep their archive copies (`kept/`): the holder deletes a
   * copy once the log was truncated past the restore that names it (see kept-archives.ts). Absent: none collected.
   */
  readonly keptStore?: ObjectStore | null;
  /** CLUSTER_SNAPSHOT_EVERY_OPS (0: not by count). */
  readonly snapshotEveryOps: number;
  /** CLUSTER_SNAPSHOT_EVERY_MIN, in milliseconds (0: not by time). */
  readonly snapshotEveryMs: number;
  /**
   * The jobs of the cluster (replicated): the holder marks failed, through the log, the unfinished jobs of a node
   * that counts as gone (its progress key expired), whose work will not resume.
   */
  readonly jobs?: {
    /** The nodes that run unfinished jobs, in this node's copy. */
    runningOn(): string[];
    /** Marks that node's unfinished jobs failed (an operation every node applies). */
    abandon(node: string): Promise<unknown>;
  };
  /**
   * The moves of partitioned collections' replicas (decision 0082): the holder, on every check, moves each placement
   * one step toward the nodes not gone (their progress key not expired) that are not restoring a snapshot.
   */
  readonly moves?: (nodes: readonly string[], holding: () => boolean) => Promise<unknown>;
  /** Wall-clock milliseconds (snapshots record Unix seconds). */
  readonly now: () => number;
  readonly logger: ClusterLogger;
}

/**
 * What a round's truncation left: each shard's first sequence now, and the highest sequence of it that every live
 * node applied and the verified snapshot includes.
 */
interface Truncated {
  readonly first: number[];
  readonly held: number[];
}

/** The lease of the singleton work this module runs. */
export const maintenanceJob = 'cluster-maintenance';

/** What the singleton work did last, for /readyz and the tests. */
export interface DutiesStatus {
  readonly leaseHolder: boolean;
  /** The newest verified cluster snapshot this node knows of. */
  readonly latestSnapshot?: { readonly id: string; readonly seq: number; readonly shards: readonly number[] };
  /** The sequence below which this node last truncated each shard it truncated (as lease holder), by shard. */
  readonly truncatedBefore?: Readonly<Record<number, number>>;
}

/**
 * What a cluster node does besides applying the log: it reports its progress to KV `godb-progress`, and contends
 * for the lease on the cluster's singleton work. The holder, on every check (a third of the lease's TTL, at most
 * 5 s): takes a cluster snapshot when CLUSTER_SNAPSHOT_EVERY_OPS operations or CLUSTER_SNAPSHOT_EVERY_MIN minutes
 * passed since the newest verified one, then truncates each shard below min(that snapshot's sequence of the shard, the
 * slowest live node's applied sequence of it) + 1. Each step runs only while the lease's fencing token is still this node's.
 *
 * @example const duties = await ClusterDuties.start({ log, nodeId: 'a', snapshots, … });
 */
export class ClusterDuties {
  readonly progress: ClusterProgress;
  readonly lease: Lease;
  readonly snapshots: ClusterSnapshots | null;
  /** The archive copies restores keep, recorded as this node applies restores; null without a snapshot store. */
  readonly keptArchives: KeptArchives | null;
  readonly #options: ClusterDutiesOptions;
  #timer: ReturnType<typeof setInterval> | null = null;
  #work: Promise<void> = Promise.resolve();
  #latest: VerifiedSnapshot | null = null;
  #truncatedBefore: Record<number, number> = {};
  /** When this node took the lease (wall clock): the time-based threshold counts from it when no snapshot exists. */
  #heldSince = 0;
  #stopped = false;

  private constructor(progress: ClusterProgress, lease: Lease, options: ClusterDutiesOptions) {
    this.progress = progress;
    this.lease = lease;
    this.snapshots = options.snapshots;
    this.#options = options;
    const { snapshots, keptStore, log, logger } = options;
    this.keptArchives =
      snapshots && keptStore ? new KeptArchives({ kv: snapshots.records, store: keptStore, logger }) : null;
    const kept = this.keptArchives;
    if (kept) {
      log.onApplied((shard, seq, op) => {
        if (op.kind === 'restore-snapshot') void kept.record(shard, seq, op.archive, op.snapshotId);
      });
    }
  }

  static async start(options: ClusterDutiesOptions): Promise<ClusterDuties> {
    const { log } = options;
    const progress = await ClusterProgress.open(log.connection, {
      node: options.nodeId,
      ...(options.address !== undefined && { address: options.address }),
      goneAfterMs: options.goneAfterMs,
      replicas: log.replicas,
      report: () => ({
        applied: log.appliedByShard(),
        ...(log.partitions && { subjects: log.partitions.heldApplied() }),
      }),
      logger: options.logger,
    });
    await progress.start();
    let duties: ClusterDuties | null = null;
    const lease = await Lease.start(log.connection, {
      job: maintenanceJob,
      holder: options.nodeId,
      ttlMs: options.leaseTtlMs,
      replicas: log.replicas,
      logger: options.logger,
      onChange: (token) => {
        if (duties && token !== null) duties.#heldSince = options.now();
      },
    });
    duties = new ClusterDuties(progress, lease, options);
    duties.#heldSince = options.now();
    duties.#timer = setInterval(() => void duties.check(), Math.min(5_000, Math.floor(options.leaseTtlMs / 3)));
    duties.#timer.unref();
    return duties;
  }

  status(): DutiesStatus {
    return {
      leaseHolder: this.lease.token !== null,
      ...(this.#latest && {
        latestSnapshot: { id: this.#latest.id, seq: this.#latest.seq, shards: this.#latest.shards },
      }),
      ...(Object.keys(this.#truncatedBefore).length > 0 && { truncatedBefore: { ...this.#truncatedBefore } }),
    };
  }

  /** One round of the singleton work when this node holds the lease (rounds never overlap); errors are logged. */
  check(): Promise<void> {
    this.#work = this.#work.then(() =>
      this.#check().catch((error: unknown) =>
        this.#options.logger.error({ err: error }, 'cluster mode: the singleton work failed; the next check retries'),
      ),
    );
    return this.#work;
  }

  async #check(): Promise<void> {
    const token = this.lease.token;
    const { snapshots, log } = this.#options;
    if (this.#stopped || token === null) return;
    const holding = () => !this.#stopped && this.lease.token === token;
    await this.#reapJobs(holding);
    await this.#moveReplicas(holding);
    if (!snapshots) return;
    let latest = (await snapshots.verified())[0] ?? null;
    const since = latest?.seq ?? 0;
    const applied = log.applied;
    const { snapshotEveryOps: everyOps, snapshotEveryMs: everyMs } = this.#options;
    const sinceAt = latest ? Math.max(latest.created_at * 1000, this.#heldSince) : this.#heldSince;
    const due =
      applied > since &&
      ((everyOps > 0 && applied - since >= everyOps) || (everyMs > 0 && this.#options.now() - sinceAt >= everyMs));
    if (due && holding()) {
      // A node restoring an older snapshot reads its archive now: that archive stays until the restore ends.
      const restoring = new Set(
        (await this.progress.live()).flatMap((p) => (p.restoring === true && p.snapshot ? [p.snapshot] : [])),
      );
      latest = await snapshots.take(token, holding, restoring);
      this.#options.logger.info(
        { snapshot: latest.id, seq: latest.seq, bytes: latest.bytes, token },
        'cluster mode: took and verified a cluster snapshot',
      );
    }
    this.#latest = latest;
    if (!latest) return;
    const truncated = await this.#truncate(latest, holding);
    if (truncated) await this.#collectKept(truncated, holding);
  }

  /** One step of the replicas' moves, over the nodes that are not gone and not restoring a snapshot. */
  async #moveReplicas(holding: () => boolean): Promise<void> {
    const { moves } = this.#options;
    if (!moves) return;
    // A step that fails (a KV write refused, NATS away) is taken again next round; the snapshots still run.
    try {
      const nodes = (await this.progress.live()).filter((p) => p.restoring !== true).map((p) => p.node);
      if (holding()) await moves(nodes, holding);
    } catch (error) {
      this.#options.logger.warn({ err: error }, 'cluster mode: the replicas of partitioned collections did not move');
    }
  }

  /** Fails the unfinished jobs of nodes that count as gone: their work stopped with them. */
  async #reapJobs(holding: () => boolean): Promise<void> {
    const { jobs, nodeId, logger } = this.#options;
    const running = jobs?.runningOn().filter((node) => node !== nodeId) ?? [];
    if (!jobs || running.length === 0) return;
    const live = new Set((await this.progress.live()).map((p) => p.node));
    for (const node of running) {
      if (live.has(node) || !holding()) continue;
      await jobs.abandon(node);
      logger.info({ node }, 'cluster mode: marked failed the unfinished jobs of a node that left the cluster');
    }
  }

  /**
   * Purges each shard below min(latest verified snapshot's sequence of that shard, slowest live node's on that shard)
   * + 1, never what a live node needs. Answers, when it purged some shard, each shard's first sequence now and how
   * far every live node and the snapshot hold it.
   */
  async #truncate(latest: VerifiedSnapshot, holding: () => boolean): Promise<Truncated | null> {
    const { log } = this.#options;
    const live = await this.progress.live();
    const own = log.appliedByShard();
    const bounds = await log.shardBounds();
    const truncated: Truncated = { first: bounds.map((b) => b.first), held: [] };
    let any = false;
    for (const [shard, { first }] of bounds.entries()) {
      const slowest = Math.min(own[shard] ?? 0, ...live.map((p) => p.applied[shard] ?? 0));
      truncated.held[shard] = Math.min(latest.shards[shard] ?? 0, slowest);
      const keepFrom = truncated.held[shard] + 1;
      // A shard never written to (first 0) has nothing to purge.
      if (first === 0 || keepFrom <= first || !holding()) continue;
      const purged = await log.truncateBefore(shard, keepFrom);
      truncated.first[shard] = keepFrom;
      any = true;
      this.#truncatedBefore[shard] = keepFrom;
      this.#options.logger.info(
        {
          shard,
          keep_from: keepFrom,
          purged,
          snapshot_seq: latest.shards[shard] ?? 0,
          slowest_live: slowest,
          live: live.length,
        },
        'cluster mode: truncated a shard of the log',
      );
    }
    return any ? truncated : null;
  }

  /**
   * After a truncation: deletes the archive copies of restores whose operation left the log, was applied by every
   * live node and is in the verified snapshot (the three hold together after a purge; each is checked, so a first
   * sequence moved by anything else deletes nothing a node may still read).
   */
  async #collectKept(truncated: Truncated, holding: () => boolean): Promise<void> {
    const past = (shard: number, seq: number) => {
      const first = truncated.first[shard] ?? 0;
      return first > 0 && seq < first && seq <= (truncated.held[shard] ?? 0);
    };
    await this.keptArchives?.collect(past, holding);
  }

  /** Stops the work, contending (releasing the lease if held, so another node takes over at once) and reporting. */
  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer) clearInterval(this.#timer);
    await this.#work;
    await this.lease.stop();
    await this.progress.stop();
  }
}
