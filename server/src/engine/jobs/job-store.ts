import { randomUUID } from 'node:crypto';
import { createError } from '@godb/contract';
import { unixSeconds, type Clock } from '../clock.js';
import type { Db } from '../storage/database.js';

export type JobStatus = 'queued' | 'running' | 'done' | 'failed';

export interface Job {
  readonly id: string;
  readonly status: JobStatus;
  readonly processed: number;
  readonly total: number;
  readonly error?: string;
}

interface JobRow {
  id: string;
  status: JobStatus;
  processed: number;
  total: number;
  error: string | null;
}

/** Progress of long work (asynchronous imports), kept in the store so it survives restarts. */
export class JobStore {
  readonly #db: Db;
  readonly #clock: Clock;

  constructor(db: Db, clock: Clock) {
    this.#db = db;
    this.#clock = clock;
    // Work that was running when the process stopped will not resume: say so rather than show it running forever.
    this.#db
      .prepare(
        "UPDATE jobs SET status = 'failed', error = 'the server stopped during this job; ' || processed || ' of ' || total || ' items were written', updated_at = ? WHERE status IN ('queued', 'running')",
      )
      .run(unixSeconds(clock));
  }

  create(tenantId: string, userId: string, kind: string, total: number): Job {
    const id = `job-${randomUUID()}`;
    const now = unixSeconds(this.#clock);
    this.#db
      .prepare(
        "INSERT INTO jobs (id, tenant_id, user_id, kind, status, processed, total, created_at, updated_at) VALUES (?, ?, ?, ?, 'queued', 0, ?, ?, ?)",
      )
      .run(id, tenantId, userId, kind, total, now, now);
    return { id, status: 'queued', processed: 0, total };
  }

  update(id: string, change: { status?: JobStatus; processed?: number; error?: string }): void {
    this.#db
      .prepare(
        'UPDATE jobs SET status = COALESCE(?, status), processed = COALESCE(?, processed), error = COALESCE(?, error), updated_at = ? WHERE id = ?',
      )
      .run(change.status ?? null, change.processed ?? null, change.error ?? null, unixSeconds(this.#clock), id);
  }

  /** A job of the tenant; jobs of other tenants are not found. */
  get(tenantId: string, id: string): Job {
    const row = this.#db
      .prepare('SELECT id, status, processed, total, error FROM jobs WHERE id = ? AND tenant_id = ?')
      .get(id, tenantId) as JobRow | undefined;
    if (!row) throw createError('NOT_FOUND', { resource: 'Job', id });
    return {
      id: row.id,
      status: row.status,
      processed: row.processed,
      total: row.total,
      ...(row.error !== null && { error: row.error }),
    };
  }
}
