import {
  type Job,
  type JobStatus,
  type JobStore,
  type LineFailure,
  type LineProgress,
  newJobId,
} from '../engine/jobs/job-store.js';
import type { OperationLog } from '../engine/operations/operation.js';

/** How often, at most, the progress of one job travels in a cluster's log (status changes go at once). */
export const jobProgressEveryMs = 1_000;

type Change = { status?: JobStatus; processed?: number; error?: string };

/** A progress report held back by the throttle, merged with the ones after it until it is sent. */
interface Held {
  change?: Change;
  lines?: { read: number; written: number; failed: number; newFailures: LineFailure[] };
}

export interface JobWritesOptions {
  readonly store: JobStore;
  /** The log every change of a job is submitted to. */
  readonly log: OperationLog;
  /** Cluster mode: this node (NODE_ID), which runs the work of the jobs it creates; null on an embedded node. */
  readonly node?: string | null;
  /**
   * How often, at most, a job's progress is submitted: {@link jobProgressEveryMs} where each operation costs a
   * round trip to the cluster, 0 (every report) on an embedded node.
   */
  readonly progressEveryMs: number;
  /** Wall-clock milliseconds, for the progress throttle. */
  readonly now: () => number;
  /** Told when a job's state could not be written (the store failed; in a cluster, NATS refused after retries). */
  readonly onError?: (error: unknown, jobId: string) => void;
}

/**
 * The jobs' writes as the use cases make them: each is an operation of the log (`job`), so in a cluster every node
 * holds the job and any node answers GET /api/v1/jobs/{id}, while the work itself runs on the node that took the
 * request. The operations of one job are submitted in the order they were made, its progress at most once per
 * `progressEveryMs` (a report held back is merged into the next one that goes), its status changes at once.
 *
 * @example
 *   const id = jobs.newId(); background.start(tenant, () => run(id)); await jobs.create({ id, tenantId, … });
 */
export class JobWrites {
  readonly #options: JobWritesOptions;
  /** Cluster mode: the last operation of each unfinished job, which its next one is published after. */
  readonly #chains = new Map<string, Promise<void>>();
  readonly #held = new Map<string, Held>();
  readonly #sentAt = new Map<string, number>();

  constructor(options: JobWritesOptions) {
    this.#options = options;
  }

  newId(): string {
    return newJobId();
  }

  /** Records a new job; resolves once it is recorded (in the log and applied on this node). */
  async create(job: { id: string; tenantId: string; userId: string; kind: string; total: number }): Promise<Job> {
    const { log, node } = this.#options;
    const full = { ...job, node: node ?? null };
    let created: Job | undefined;
    await this.#then(job.id, async () => {
      created = (await log.submit({ kind: 'job', method: 'create', args: [full] })) as Job;
    });
    if (!created) throw new Error(`job ${job.id} was not created`);
    return created;
  }

  /** Changes a job's status, counts or error; a change of `processed` alone is progress (throttled). */
  update(id: string, change: Change): void {
    const held = this.#held.get(id) ?? {};
    held.change = { ...held.change, ...change };
    this.#held.set(id, held);
    this.#send(id, change.status !== undefined || change.error !== undefined);
  }

  /** The progress of a line-by-line import (throttled; the failures since the last report are kept). */
  updateLines(id: string, progress: LineProgress): void {
    const held = this.#held.get(id) ?? {};
    held.lines = {
      read: progress.read,
      written: progress.written,
      failed: progress.failed,
      newFailures: [...(held.lines?.newFailures ?? []), ...(progress.newFailures ?? [])],
    };
    this.#held.set(id, held);
    this.#send(id, false);
  }

  get(tenantId: string, id: string): Job {
    return this.#options.store.get(tenantId, id);
  }

  /** Submits what is held for the job, unless it is progress sent too soon after the last. */
  #send(id: string, now: boolean): void {
    const { log, progressEveryMs } = this.#options;
    const at = this.#options.now();
    if (!now && progressEveryMs > 0 && at - (this.#sentAt.get(id) ?? -Infinity) < progressEveryMs) return;
    const held = this.#held.get(id);
    this.#held.delete(id);
    if (!held) return;
    this.#sentAt.set(id, at);
    const finished = held.change?.status === 'done' || held.change?.status === 'failed';
    void this.#then(id, async () => {
      if (held.lines) await log.submit({ kind: 'job', method: 'updateLines', args: [id, held.lines] });
      if (held.change) await log.submit({ kind: 'job', method: 'update', args: [id, held.change] });
    }).catch((error: unknown) => this.#options.onError?.(error, id));
    if (finished) this.#sentAt.delete(id);
  }

  /**
   * Runs `work` after the job's operations made before it (the log keeps their order); with none under way, at once
   * (an embedded log has then applied the change when the call returns; one made right behind another follows it a
   * few microtasks later).
   */
  #then(id: string, work: () => Promise<void>): Promise<void> {
    const previous = this.#chains.get(id);
    const next = previous ? previous.then(work) : work();
    const settled = next.catch(() => undefined);
    this.#chains.set(id, settled);
    void settled.then(() => {
      if (this.#chains.get(id) === settled) this.#chains.delete(id);
    });
    return next;
  }
}
