import type { UseCaseOf } from '../context.js';
import type { DocumentDeps } from './deps.js';
import { viewerOf } from './viewer.js';

export const documentStatsUseCase =
  (deps: DocumentDeps): UseCaseOf<'document-stats'> =>
  async (_input, ctx) =>
    deps.maintenance.stats(viewerOf(ctx).tenantId);
