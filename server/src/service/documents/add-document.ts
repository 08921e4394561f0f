import type { DocumentInput } from '@godb/contract';
import type { PreparedDocument, Viewer } from '../../engine/documents/types.js';
import type { UseCaseOf } from '../context.js';
import { StatusResult } from '../status-result.js';
import { startBackgroundJob } from './background-job.js';
import type { DocumentDeps } from './deps.js';
import { viewerOf } from './viewer.js';
import { addDocuments } from './write-documents.js';

const path = () => 'body';

/**
 * Stores one document. With `?async=true` (large texts: embedding 1 MB takes seconds), the document is validated
 * and chunked first (an invalid one answers 400 and nothing is written), then the answer is 202 with its id and a
 * job whose progress GET /api/v1/jobs/{id} reports, while it is embedded and written in the background.
 */
export const addDocumentUseCase =
  (deps: DocumentDeps): UseCaseOf<'add-document'> =>
  async ({ body, query }, ctx) => {
    const viewer = viewerOf(ctx);
    if (!query.async) {
      const [{ id, version }] = (await addDocuments(deps, viewer, [body], path, ctx.signal)) as [
        { id: string; version: number },
      ];
      return { success: true, document_id: id, version };
    }
    const [prepared] = deps.documents.preparation.prepare(viewer, [body], path) as [PreparedDocument];
    const id = prepared.id;
    // The background write must store the id answered now, also when the server generated it.
    const input: DocumentInput = { ...body, id };
    const job = { kind: 'add-document', total: 1, what: 'asynchronous add' };
    const jobId = await startBackgroundJob(deps, viewer, job, (id) => addInBackground(deps, viewer, input, id));
    return new StatusResult(202, { success: true, document_id: input.id, job_id: jobId }) as never;
  };

async function addInBackground(deps: DocumentDeps, viewer: Viewer, input: DocumentInput, jobId: string) {
  deps.jobs.update(jobId, { status: 'running' });
  try {
    await addDocuments(deps, viewer, [input], path);
    deps.jobs.update(jobId, { status: 'done', processed: 1 });
  } catch (error) {
    deps.jobs.update(jobId, { status: 'failed', error: `${(error as Error).message} (the document was not written)` });
  }
}
