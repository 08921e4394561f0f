import { createError } from '@godb/contract';
import type { Snapshots } from '../../engine/snapshots/snapshots.js';
import type { UseCaseOf } from '../context.js';
import { viewerOf } from '../documents/viewer.js';
import { FileResult } from '../file-result.js';
import type { SnapshotDeps } from './deps.js';

function snapshotsOf(deps: SnapshotDeps): Snapshots {
  if (!deps.snapshots) throw createError('NOT_FOUND', { resource: 'Snapshot store', id: 'in-memory' });
  return deps.snapshots;
}

/**
 * Starts a whole-node snapshot as a job (one snapshot at a time per server is not enforced: each has its own
 * consistent point and staging folder). Progress counts pages copied, then bytes stored, as a share of 1,000.
 */
export const createSnapshotUseCase =
  (deps: SnapshotDeps): UseCaseOf<'create-snapshot'> =>
  async (_input, ctx) => {
    const snapshots = snapshotsOf(deps);
    const viewer = viewerOf(ctx);
    const id = snapshots.newId();
    const job = deps.jobs.create(viewer.tenantId, viewer.userId, 'create-snapshot', 1000);
    deps.jobs.update(job.id, { status: 'running' });
    let last = 0;
    void snapshots
      .create(id, (done, total) => {
        const processed = total === 0 ? 0 : Math.floor((done / total) * 1000);
        if (processed < 1000 && processed - last < 10) return;
        last = processed;
        deps.jobs.update(job.id, { processed: Math.min(processed, 999) });
      })
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
  async () => ({
    snapshots: (await snapshotsOf(deps).list()).map((m) => ({
      id: m.id,
      created_at: m.created_at,
      last_write_seq: m.last_write_seq,
      schema_version: m.schema_version,
      bytes: m.bytes,
      files: m.files.map((f) => ({ path: f.path, size: f.size, sha256: f.sha256 })),
    })),
  });

export const downloadSnapshotUseCase =
  (deps: SnapshotDeps): UseCaseOf<'download-snapshot'> =>
  async ({ params }) => {
    const archive = await snapshotsOf(deps).archive(params.id);
    return new FileResult(archive.body, `${params.id}.tar`, 'application/x-tar', archive.size) as never;
  };

export const deleteSnapshotUseCase =
  (deps: SnapshotDeps): UseCaseOf<'delete-snapshot'> =>
  async ({ params }) => {
    await snapshotsOf(deps).delete(params.id);
    return { success: true, message: 'Snapshot deleted' };
  };
