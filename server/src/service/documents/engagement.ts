import type { RequestContext, UseCaseOf } from '../context.js';
import type { DocumentDeps } from './deps.js';
import { viewerOf } from './viewer.js';

async function engage(deps: DocumentDeps, id: string, body: object, ctx: RequestContext) {
  return {
    success: true as const,
    updated_fields: await deps.commands.change('engage', viewerOf(ctx), id, body as Record<string, unknown>),
  };
}

/** PATCH: record engagement. */
export const updateEngagementUseCase =
  (deps: DocumentDeps): UseCaseOf<'update-engagement'> =>
  async ({ params, body }, ctx) =>
    engage(deps, params.id, body, ctx);

/** POST: the playground's form of the same call. */
export const recordEngagementUseCase =
  (deps: DocumentDeps): UseCaseOf<'record-engagement'> =>
  async ({ params, body }, ctx) =>
    engage(deps, params.id, body, ctx);
