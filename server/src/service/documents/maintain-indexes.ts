import type { UseCaseOf } from '../context.js';
import type { DocumentDeps } from './deps.js';
import { viewerOf } from './viewer.js';

const elapsed = (started: number) => Math.round((performance.now() - started) * 10) / 10;

export const refreshIndexesUseCase =
  (deps: DocumentDeps): UseCaseOf<'refresh-indexes'> =>
  async (_input, ctx) => {
    const started = performance.now();
    const { documents, vectors } = deps.maintenance.refresh(viewerOf(ctx).tenantId);
    const took = elapsed(started);
    return {
      success: true,
      documents,
      vectors,
      took_ms: took,
      message: `Rebuilt the text, geo and vector indexes of ${documents} documents (${vectors} vectors) in ${took} ms`,
    };
  };

export const reclusterIndexesUseCase =
  (deps: DocumentDeps): UseCaseOf<'recluster-indexes'> =>
  async (_input, ctx) => {
    const started = performance.now();
    const { clusters, vectors } = deps.maintenance.recluster(viewerOf(ctx).tenantId);
    const took = elapsed(started);
    return {
      success: true,
      clusters,
      vectors,
      took_ms: took,
      message: `Grouped ${vectors} vectors into ${clusters} clusters in ${took} ms`,
    };
  };
