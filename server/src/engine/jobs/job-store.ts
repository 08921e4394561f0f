import { randomUUID } from 'node:crypto';
import { createError } from '@godb/contract';
import { unixSeconds, type Clock } from '../clock.js';
import type { Db } from '../storage/database.js';

export type JobStatus = 'queued' | 'running' | 'done' | 'failed';

/** What a job's `processed` and `total` count. */
export type JobUnit = 'documents' | 'lines' | 'thousandths';

/**
 * The unit of each kind of job: documents written (asynchronous adds), NDJSON lines read (imports), or thousandths of
 * the work (snapshots and restores, which copy database pages or rows and then bytes, not documents).
 */
const abandonedText: Record<JobUnit, string> = {
  documents: ' documents were written',
  lines: ' lines were read',
  thousandths: ' thousandths of the work were done',
};

const unitOfKind: Readonly<Record<string, JobUnit>> = {
  'add-document': 'documents',
  'batch-add-documents': 'documents',
  'import-documents': 'lines',
  'create-snapshot': 'thousandths',
  'restore-snapshot': 'thousandths',
};

export interface Job {
  readonly id: string;
  readonly status: JobStatus;
  readonly processed: number;
  readonly total: number;
  /** What `processed` and `total` count. */
  readonly unit: JobUnit;
  readonly error?: string;
  /** NDJSON imports only, from here on. */
  readonly read?: number;
  readonly written?: number;
  readonly failed?: number;
  /** Lines per second since the job started. */
  readonly rate?: number;
  /** Seconds left at that rate, when the total is known. */
  readonly eta_s?: number;
  readonly failures?: LineFailure[];
}

/** A line an import refused. */
export interface LineFailure {
  readonly line: number;
  readonly code: string;
  readonly message: string;
  readonly field?: string;
}

/** Failed lines a job keeps, so a file of bad lines does not grow its record without bound. */
export const maxJobFailures = 100;

export interface LineProgress {
  readonly read: number;
  readonly written: number;
  readonly failed: number;
  /** Failures since the previous call; kept up to maxJobFailures. */
  readonly newFailures?: readonly LineFailure[];
}

interface JobRow {
  id: string;
  kind: string;
  status: JobStatus;
  processed: number;
  total: number;
  error: string | null;
  lines_read: number;
  written: number;
  failed: number;
  failures: string | null;
  started_ms: number | null;
  updated_ms: number | null;
}

/** A new job, its id decided by the caller (in cluster mode, before the operation that creates it is published). */
export interface NewJob {
  readonly id: string;
  readonly tenantId: string;
  readonly userId: string;
  readonly kind: string;
  readonly total: number;
  /** Cluster mode: the node that runs the work (NODE_ID); null on an embedded node. */
  readonly node: string | null;
}

/** How a job cut short says what it had done, by kind (SQL CASE branches over `kind`). */
const abandonedUnits = `${Object.entries(unitOfKind)
  .map(([kind, unit]) => `WHEN '${kind}' THEN '${abandonedText[unit]}'`)
  .join(' ')} ELSE ' items were written'`;

/** A fresh job id. */
export function newJobId(): string {
  return `job-${randomUUID()}`;
}

/**
 * Progress of long work (asynchronous imports), kept in the store so it survives restarts. Every write reads the
 * time from the engine's clock once: the time its caller decided (an operation's `now` in cluster mode, where jobs
 * are replicated so that any node answers GET /api/v1/jobs/{id}; see service/jobs/job-writes.ts).
 */
export class JobStore {
  readonly #db: Db;
  readonly #clock: Clock;

  constructor(db: Db, clock: Clock) {
    this.#db = db;
    this.#clock = clock;
  }

  create(job: NewJob): Job {
    const now = unixSeconds(this.#clock);
    this.#db
      .prepare(
        "INSERT INTO jobs (id, tenant_id, user_id, kind, status, processed, total, created_at, updated_at, node) VALUES (?, ?, ?, ?, 'queued', 0, ?, ?, ?, ?)",
      )
      .run(job.id, job.tenantId, job.userId, job.kind, job.total, now, now, job.node);
    return { id: job.id, status: 'queued', processed: 0, total: job.total, unit: unitOf(job.kind) };
  }

  /**
   * Marks failed, saying why, the jobs still queued or running of `node` (null: an embedded node's, all of them):
   * work that was running when its process stopped will not resume, and is not shown running for ever. Answers how
   * many it marked.
   */
  abandon(node: string | null, why: 'restarted' | 'gone'): number {
    const cause =
      node === null
        ? "'the server stopped during this job; '"
        : why === 'restarted'
          ? "'the node that ran this job (' || node || ') stopped during it; '"
          : "'the node that ran this job (' || node || ') left the cluster during it; '";
    return this.#db
      .prepare(
        `UPDATE jobs SET status = 'failed', error = ${cause} || processed || ' of ' || total || CASE kind ${abandonedUnits} END, updated_at = ?
         WHERE status IN ('queued', 'running') AND node IS ?`,
      )
      .run(unixSeconds(this.#clock), node).changes;
  }

  /** The nodes that run jobs still queued or running (cluster mode: the lease holder fails those of gone nodes). */
  runningOn(): string[] {
    return this.#db
      .prepare("SELECT DISTINCT node FROM jobs WHERE status IN ('queued', 'running') AND node IS NOT NULL")
      .pluck()
      .all() as string[];
  }

  update(id: string, change: { status?: JobStatus; processed?: number; error?: string }): void {
    this.#db
      .prepare(
        'UPDATE jobs SET status = COALESCE(?, status), processed = COALESCE(?, processed), error = COALESCE(?, error), updated_at = ? WHERE id = ?',
      )
      .run(change.status ?? null, change.processed ?? null, change.error ?? null, unixSeconds(this.#clock), id);
  }

  /**
   * Records the progress of a line-by-line import (`processed` follows the lines read). The first call starts the
   * job's clock, from which its rate and ETA are derived.
   */
  updateLines(id: string, progress: LineProgress): void {
    const now = this.#clock.now();
    const row = this.#db.prepare('SELECT failures FROM jobs WHERE id = ?').get(id) as
      Pick<JobRow, 'failures'> | undefined;
    if (!row) return;
    const kept = row.failures === null ? [] : (JSON.parse(row.failures) as LineFailure[]);
    const failures =
      progress.newFailures?.length && kept.length < maxJobFailures
        ? JSON.stringify([...kept, ...progress.newFailures].slice(0, maxJobFailures))
        : null;
    this.#db
      .prepare(
        'UPDATE jobs SET processed = ?, lines_read = ?, written = ?, failed = ?, failures = COALESCE(?, failures), started_ms = COALESCE(started_ms, ?), updated_ms = ?, updated_at = ? WHERE id = ?',
      )
      .run(
        progress.read,
        progress.read,
        progress.written,
        progress.failed,
        failures,
        now,
        now,
        Math.floor(now / 1000),
        id,
      );
  }

  /** A job of the tenant; jobs of other tenants are not found. */
  get(tenantId: string, id: string): Job {
    const row = this.#db
      .prepare(
        'SELECT id, kind, status, processed, total, error, lines_read, written, failed, failures, started_ms, updated_ms FROM jobs WHERE id = ? AND tenant_id = ?',
      )
      .get(id, tenantId) as JobRow | undefined;
    if (!row) throw createError('NOT_FOUND', { resource: 'Job', id });
    return {
      id: row.id,
      status: row.status,
      processed: row.processed,
      total: row.total,
      unit: unitOf(row.kind),
      ...(row.error !== null && { error: row.error }),
      ...(row.kind === 'import-documents' && lineProgressOf(row, this.#clock.now())),
    };
  }
}

const unitOf = (kind: string): JobUnit => unitOfKind[kind] ?? 'documents';

function lineProgressOf(row: JobRow, now: number): Partial<Job> {
  const end = row.status === 'running' ? now : (row.updated_ms ?? now);
  const seconds = row.started_ms === null ? 0 : (end - row.started_ms) / 1000;
  const rate = seconds > 0 ? Math.round((row.lines_read / seconds) * 10) / 10 : 0;
  const left = Math.max(0, row.total - row.lines_read);
  return {
    read: row.lines_read,
    written: row.written,
    failed: row.failed,
    rate,
    ...(row.status === 'done' ? { eta_s: 0 } : rate > 0 && { eta_s: Math.ceil(left / rate) }),
    failures: row.failures === null ? [] : (JSON.parse(row.failures) as LineFailure[]),
  };
}
