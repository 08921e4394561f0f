import type { UseCaseOf } from '../context.js';
import type { DocumentDeps } from './deps.js';
import { viewerOf } from './viewer.js';

export const setVisibilityUseCase =
  (deps: DocumentDeps): UseCaseOf<'set-visibility'> =>
  async ({ params, body }, ctx) => {
    await deps.documents.change('setVisibility', viewerOf(ctx), params.id, body.visibility);
    return { success: true, message: `Visibility set to ${body.visibility}` };
  };
