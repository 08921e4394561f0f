import type { Viewer } from '../../engine/documents/types.js';
import { BackgroundWork } from './background-work.js';
import type { DocumentDeps } from './deps.js';

/** What a background job is recorded as, and what its work is called while it runs (e.g. in a restore's wait). */
export interface BackgroundJob {
  kind: string;
  total: number;
  what: string;
}

/**
 * Starts `run(jobId)` as the viewer's background work and records its job, answering the job's id (for a 202).
 * The job is made once the work is admitted (a refused one, OVERLOADED, leaves no job queued for ever), in this
 * turn: the work runs after it, and its first change of the job follows the job's creation.
 *
 * @example const jobId = await startBackgroundJob(deps, viewer, { kind: 'add-document', total: 1, what }, run);
 */
export async function startBackgroundJob(
  deps: DocumentDeps,
  viewer: Viewer,
  job: BackgroundJob,
  run: (jobId: string) => Promise<void>,
): Promise<string> {
  const background = deps.background ?? new BackgroundWork();
  const jobId = deps.jobs.newId();
  background.start(viewer.tenantId, () => run(jobId), job.what);
  await deps.jobs.create({
    id: jobId,
    tenantId: viewer.tenantId,
    userId: viewer.userId,
    kind: job.kind,
    total: job.total,
  });
  return jobId;
}
