import type { DocumentInput } from '@godb/contract';
import type { Viewer } from '../../engine/documents/types.js';
import type { UseCaseOf } from '../context.js';
import { StatusResult } from '../status-result.js';
import { startBackgroundJob } from './background-job.js';
import type { DocumentDeps } from './deps.js';
import { viewerOf } from './viewer.js';
import { addDocuments, writeDocuments } from './write-documents.js';

/** Documents embedded and written per transaction in an asynchronous import. */
export const importGroupSize = 500;

const path = (i: number) => `body[${i}]`;

/**
 * Synchronous mode: all or nothing, in one transaction. Asynchronous mode (`?async=true`): every document is
 * validated first (one invalid item and nothing is written), then the import continues in the background in
 * groups of 500 documents per transaction, with progress at GET /api/v1/jobs/{id}.
 */
export const batchAddDocumentsUseCase =
  (deps: DocumentDeps): UseCaseOf<'batch-add-documents'> =>
  async ({ body, query }, ctx) => {
    const viewer = viewerOf(ctx);
    if (!query.async) {
      const written = await addDocuments(deps, viewer, body, path, ctx.signal);
      return { success: true, count: written.length, document_ids: written.map((w) => w.id) };
    }
    deps.documents.preparation.prepare(viewer, body, path);
    const job = { kind: 'batch-add-documents', total: body.length, what: 'asynchronous batch add' };
    const jobId = await startBackgroundJob(deps, viewer, job, (id) => runImport(deps, viewer, body, id));
    return new StatusResult(202, { success: true, count: body.length, job_id: jobId }) as never;
  };

async function runImport(
  deps: DocumentDeps,
  viewer: Viewer,
  inputs: readonly DocumentInput[],
  jobId: string,
): Promise<void> {
  deps.jobs.update(jobId, { status: 'running' });
  let processed = 0;
  try {
    for (let start = 0; start < inputs.length; start += importGroupSize) {
      const group = inputs.slice(start, start + importGroupSize);
      const prepared = deps.documents.preparation.prepare(viewer, group, (i) => path(start + i));
      await deps.documents.preparation.embed(prepared);
      await writeDocuments(deps, viewer, prepared, (i) => path(start + i));
      processed += group.length;
      deps.jobs.update(jobId, { processed });
      await new Promise((resolve) => setImmediate(resolve));
    }
    deps.jobs.update(jobId, { status: 'done', processed });
  } catch (error) {
    deps.jobs.update(jobId, {
      status: 'failed',
      processed,
      error: `${(error as Error).message} (${processed} of ${inputs.length} documents were written)`,
    });
  }
}
