import type { UseCaseOf } from '../context.js';
import type { DocumentDeps } from './deps.js';
import { viewerOf } from './viewer.js';

export const addDocumentUseCase =
  (deps: DocumentDeps): UseCaseOf<'add-document'> =>
  async ({ body }, ctx) => {
    const [{ id, version }] = (await deps.documents.add(viewerOf(ctx), [body], () => 'body', ctx.signal)) as [
      { id: string; version: number },
    ];
    return { success: true, document_id: id, version };
  };
