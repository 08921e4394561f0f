import type { UseCaseOf } from '../context.js';
import type { DocumentDeps } from './deps.js';
import { viewerOf } from './viewer.js';

export const updateDocumentUseCase =
  (deps: DocumentDeps): UseCaseOf<'update-document'> =>
  async ({ params, body }, ctx) => {
    const { id, version } = await deps.documents.patch(
      viewerOf(ctx),
      params.id,
      { ...body, location: body.location as [number, number] | undefined },
      ctx.signal,
    );
    return { success: true as const, document_id: id, version };
  };
