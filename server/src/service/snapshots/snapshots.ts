import { createError } from '@godb/contract';
import type { OnlineRestore } from '../../engine/snapshots/online-restore.js';
import type { StagedSnapshot } from '../../engine/snapshots/snapshot-staging.js';
import type { Snapshots } from '../../engine/snapshots/snapshots.js';
import type { OperationLog } from '../../engine/operations/operation.js';
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
 * Restores a stored snapshot into this node: reads and checks it in the request (a damaged or misplaced snapshot
 * is refused before anything changes), then applies it as a job. Restores queue behind each other.
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
    if (deps.log) return restoreEverywhere(deps, deps.log, snapshots, restore, body.snapshot_id, viewer, tenantId);
    const previous = restoring;
    let release = () => {};
    restoring = new Promise<void>((resolve) => (release = resolve));
    let staged;
    try {
      await previous;
      const stored = await snapshots.manifest(body.snapshot_id, tenantId);
      const archive = await snapshots.archive(body.snapshot_id, tenantId);
      staged = await restore.stage(archive.body, {
        tenantId,
        keepTenants: [systemTenantId],
        trustIndexFiles: stored.untrusted_indexes !== true,
      });
    } catch (error) {
      release();
      throw error;
    }
    const job = await runningJob(deps, viewer, 'restore-snapshot');
    const restored = restore.apply(
      staged,
      (done, total) => deps.jobs.update(job.id, { processed: Math.min(999, Math.floor((done / total) * 1000)) }),
      (tenant) => drain(deps, tenant),
    );
    void endRestoreJob(deps, job.id, restored)
      // The store closed under it (the server stopped): the job cannot be updated; a tenant restore cut short is
      // finished when the server starts.
      .catch(() => {})
      .finally(release);
    return restoreAccepted(staged, job.id, 'Snapshot checked; restoring');
  };
};

/**
 * Cluster mode: a restore is an operation of the replicated log that every node applies, in log order, from the same
 * archive: a copy the taking node keeps in the shared snapshot store (so a later deletion of the snapshot does not
 * take it from a node that applies the operation later). The snapshot is checked here first (a damaged or misplaced
 * one is refused before anything is published); the job follows the restore on this node.
 */
async function restoreEverywhere(
  deps: SnapshotDeps,
  log: OperationLog,
  snapshots: Snapshots,
  restore: OnlineRestore,
  snapshotId: string,
  viewer: Viewer,
  tenantId: string | undefined,
) {
  const stored = await snapshots.manifest(snapshotId, tenantId);
  const restorer = { tenantId, keepTenants: [systemTenantId], trustIndexFiles: stored.untrusted_indexes !== true };
  const staged = await restore.stage((await snapshots.archive(snapshotId, tenantId)).body, restorer);
  staged.discard();
  const archive = await snapshots.keep(snapshotId, tenantId);
  const job = await runningJob(deps, viewer, 'restore-snapshot');
  const restored = log.submit({
    kind: 'restore-snapshot',
    snapshotId,
    archive,
    restorer: {
      ...(tenantId !== undefined && { tenantId }),
      keepTenants: restorer.keepTenants,
      trustIndexFiles: restorer.trustIndexFiles,
    },
  });
  void endRestoreJob(deps, job.id, restored);
  return restoreAccepted(staged, job.id, 'Snapshot checked; restoring on every node');
}

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
