import type { UseCaseOf } from '../context.js';
import type { DocumentDeps } from './deps.js';
import { viewerOf } from './viewer.js';

export const getJobUseCase =
  (deps: DocumentDeps): UseCaseOf<'get-job'> =>
  async ({ params }, ctx) =>
    deps.jobs.get(viewerOf(ctx).tenantId, params.id);
