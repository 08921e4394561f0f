import type { UseCaseOf } from '../context.js';
import type { DocumentDeps } from './deps.js';
import { viewerOf } from './viewer.js';

/** Submits a maintenance pass to the log: every node rebuilds its own indexes. */
async function maintain<M extends 'refresh' | 'recluster'>(
  deps: DocumentDeps,
  method: M,
  tenantId: string,
): Promise<ReturnType<DocumentDeps['maintenance'][M]>> {
  return (await deps.log.submit({ kind: 'maintenance', method, tenantId })) as ReturnType<
    DocumentDeps['maintenance'][M]
  >;
}

const elapsed = (started: number) => Math.round((performance.now() - started) * 10) / 10;

export const refreshIndexesUseCase =
  (deps: DocumentDeps): UseCaseOf<'refresh-indexes'> =>
  async (_input, ctx) => {
    const started = performance.now();
    const { documents, vectors } = await maintain(deps, 'refresh', viewerOf(ctx).tenantId);
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
    const { clusters, vectors } = await maintain(deps, 'recluster', viewerOf(ctx).tenantId);
    const took = elapsed(started);
    return {
      success: true,
      clusters,
      vectors,
      took_ms: took,
      message: `Grouped ${vectors} vectors into ${clusters} clusters in ${took} ms`,
    };
  };
