import { createError } from '@godb/contract';
import type { OnlineRestore } from '../../engine/snapshots/online-restore.js';
import type { StagedSnapshot } from '../../engine/snapshots/snapshot-staging.js';
import type { Snapshots } from '../../engine/snapshots/snapshots.js';
import type { Viewer } from '../../engine/documents/types.js';
import { systemTenantId } from '../auth/bootstrap-superadmin.js';
import { principalOf, type RequestContext, type UseCaseOf } from '../context.js';
import { viewerOf } from '../documents/viewer.js';
import { FileResult } from '../file-result.js';
import type { SnapshotDeps } from './deps.js';

/** A new job of the caller's for a snapshot or a restore, already running (progress in thousandths). */
async function runningJob(deps: SnapshotDeps, viewer: Viewer, kind: 'create-snapshot' | 'restore-snapshot') {
  const job = await deps.jobs.create({
    id: deps.jobs.newId(),
    tenantId: viewer.tenantId,
    userId: viewer.userId,
    kind,
    total: 1000,
  });
  deps.jobs.update(job.id, { status: 'running' });
  return job;
}

/** Ends a restore's job once the restore settles: done, or failed saying why the snapshot was not restored. */
function endRestoreJob(deps: SnapshotDeps, jobId: string, restored: Promise<unknown>): Promise<void> {
  return restored.then(
    () => deps.jobs.update(jobId, { status: 'done', processed: 1000 }),
    (error: unknown) =>
      deps.jobs.update(jobId, {
        status: 'failed',
        error: `the snapshot was not restored: ${error instanceof Error ? error.message : String(error)}`,
      }),
  );
}

/** The 202 answer to a restore: what the checked snapshot restores, and the job that follows it. */
function restoreAccepted(staged: StagedSnapshot, jobId: string, message: string) {
  return {
    success: true as const,
    snapshot_id: staged.manifest.id,
    scope: staged.manifest.scope ?? 'node',
    tenants: [...staged.tenants],
    job_id: jobId,
    message,
  };
}

function snapshotsOf(deps: SnapshotDeps): Snapshots {
  if (!deps.snapshots) throw createError('NOT_FOUND', { resource: 'Snapshot store', id: 'in-memory' });
  return deps.snapshots;
}

function restoreOf(deps: SnapshotDeps): OnlineRestore {
  if (!deps.restore) throw createError('NOT_FOUND', { resource: 'Snapshot store', id: 'in-memory' });
  return deps.restore;
}

/** The tenant whose snapshots the caller handles: a tenant admin's own; undefined for the super admin (all). */
const scopeOf = (ctx: RequestContext): string | undefined => {
  const principal = principalOf(ctx);
  return principal.role === 'superadmin' ? undefined : principal.tenantId;
};

/**
 * Starts a snapshot as a job: the whole node for the super admin, the caller's tenant for a tenant admin (one
 * snapshot at a time per server is not enforced: each has its own consistent point and staging folder). Progress
 * counts pages (or the tenant's rows) copied, then bytes stored, as a share of 1,000.
 */
export const createSnapshotUseCase =
  (deps: SnapshotDeps): UseCaseOf<'create-snapshot'> =>
  async (_input, ctx) => {
    const snapshots = snapshotsOf(deps);
    const viewer = viewerOf(ctx);
    // A tenant being restored holds half of its data: no snapshot of it (or of the whole node) until it is done.
    const restoring = deps.restore?.restoring(scopeOf(ctx));
    if (restoring !== undefined)
      throw createError('TENANT_RESTORING', { snapshot_id: restoring }, { details: { retry_after: 5 } });
    const id = snapshots.newId();
    const job = await runningJob(deps, viewer, 'create-snapshot');
    let last = 0;
    void snapshots
      .create(
        id,
        (done, total) => {
          const processed = total === 0 ? 0 : Math.floor((done / total) * 1000);
          if (processed < 1000 && processed - last < 10) return;
          last = processed;
          deps.jobs.update(job.id, { processed: Math.min(processed, 999) });
        },
        scopeOf(ctx),
      )
      .then(
        () => deps.jobs.update(job.id, { status: 'done', processed: 1000 }),
        (error: unknown) =>
          deps.jobs.update(job.id, {
            status: 'failed',
            error: `the snapshot could not be taken: ${error instanceof Error ? error.message : String(error)}`,
          }),
      );
    return { success: true as const, snapshot_id: id, job_id: job.id, message: 'Snapshot started' };
  };

export const listSnapshotsUseCase =
  (deps: SnapshotDeps): UseCaseOf<'list-snapshots'> =>
  async (_input, ctx) => ({
    snapshots: (await snapshotsOf(deps).list(scopeOf(ctx))).map((m) => ({
      id: m.id,
      scope: m.scope ?? 'node',
      ...(m.tenant_id !== undefined && { tenant_id: m.tenant_id }),
      created_at: m.created_at,
      last_write_seq: m.last_write_seq,
      schema_version: m.schema_version,
      bytes: m.bytes,
      files: m.files.map((f) => ({ path: f.path, size: f.size, sha256: f.sha256 })),
    })),
  });

export const downloadSnapshotUseCase =
  (deps: SnapshotDeps): UseCaseOf<'download-snapshot'> =>
  async ({ params }, ctx) => {
    const archive = await snapshotsOf(deps).archive(params.id, scopeOf(ctx));
    return new FileResult(archive.body, `${params.id}.tar`, 'application/x-tar', archive.size) as never;
  };

export const deleteSnapshotUseCase =
  (deps: SnapshotDeps): UseCaseOf<'delete-snapshot'> =>
  async ({ params }, ctx) => {
    await snapshotsOf(deps).delete(params.id, scopeOf(ctx));
    return { success: true, message: 'Snapshot deleted' };
  };

/**
 * Waits until the tenant's requests and background writes under way have ended, at most RESTORE_DRAIN_TIMEOUT_MS:
 * then it throws RESTORE_DRAIN_TIMEOUT naming what still runs (the restore then changes nothing).
 */
async function drain(deps: SnapshotDeps, tenantId: string): Promise<void> {
  const activity = deps.background?.activity;
  if (!activity) return;
  const idle = activity.idle(tenantId);
  const limit = deps.restoreDrain;
  if (!limit) return idle;
  let late = false;
  await Promise.race([idle, limit.sleep(limit.timeoutMs).then(() => (late = true))]);
  const running = activity.describe(tenantId);
  if (late && running !== '')
    throw createError('RESTORE_DRAIN_TIMEOUT', { tenant_id: tenantId, timeout_ms: limit.timeoutMs, running });
}

/**
 * Restores a stored snapshot: reads and checks it in the request (a damaged or misplaced snapshot is refused before
 * anything changes), then submits the restore to the log and follows it with a job. The operation names a copy of
 * the archive kept in the snapshot store, so a later deletion of the snapshot does not take it from a node of a
 * cluster that applies the operation later; every node restores the same archive, in log order. Restores queue
 * behind each other.
 */
export const restoreSnapshotUseCase = (deps: SnapshotDeps): UseCaseOf<'restore-snapshot'> => {
  // Restores run one at a time per server, each from its check to the end of its job: each swaps rows and index
  // files that another would race, and a whole-node restore checks that the node is still empty.
  let restoring: Promise<void> = Promise.resolve();
  return async ({ body }, ctx) => {
    const snapshots = snapshotsOf(deps);
    const restore = restoreOf(deps);
    const viewer = viewerOf(ctx);
    const tenantId = scopeOf(ctx);
    const previous = restoring;
    let release = () => {};
    restoring = new Promise<void>((resolve) => (release = resolve));
    let staged: StagedSnapshot;
    let archive: string;
    let restorer: { keepTenants: string[]; trustIndexFiles: boolean };
    try {
      await previous;
      const stored = await snapshots.manifest(body.snapshot_id, tenantId);
      restorer = { keepTenants: [systemTenantId], trustIndexFiles: stored.untrusted_indexes !== true };
      const checked = await snapshots.archive(body.snapshot_id, tenantId);
      staged = await restore.stage(checked.body, { tenantId, ...restorer });
      staged.discard();
      archive = await snapshots.keep(body.snapshot_id, tenantId);
    } catch (error) {
      release();
      throw error;
    }
    let job: Awaited<ReturnType<typeof runningJob>>;
    try {
      job = await runningJob(deps, viewer, 'restore-snapshot');
    } catch (error) {
      // No operation names the copy, and the next restore must not wait for this one.
      await snapshots.forgetKept(archive).catch(() => {});
      release();
      throw error;
    }
    const progress = (done: number, total: number) =>
      deps.jobs.update(job.id, { processed: Math.min(999, Math.floor((done / total) * 1000)) });
    const restored = deps.log.submit(
      {
        kind: 'restore-snapshot',
        snapshotId: body.snapshot_id,
        archive,
        restorer: { ...(tenantId !== undefined && { tenantId }), ...restorer },
      },
      { restore: { progress, drain: (tenant) => drain(deps, tenant) } },
    );
    void endRestoreJob(deps, job.id, restored)
      // The store closed under it (the server stopped): the job cannot be updated; a tenant restore cut short is
      // finished when the server starts.
      .catch(() => {})
      .finally(release);
    return restoreAccepted(staged, job.id, 'Snapshot checked; restoring');
  };
};

/** Stores an uploaded snapshot archive once it has been checked (see Snapshots.receive). */
export const uploadSnapshotUseCase =
  (deps: SnapshotDeps): UseCaseOf<'upload-snapshot'> =>
  async ({ body }, ctx) => {
    const manifest = await snapshotsOf(deps).receive(body, scopeOf(ctx));
    return {
      success: true as const,
      snapshot_id: manifest.id,
      scope: manifest.scope ?? 'node',
      ...(manifest.tenant_id !== undefined && { tenant_id: manifest.tenant_id }),
      bytes: manifest.bytes,
    };
  };
