import type { UseCaseOf } from '../context.js';
import type { DocumentDeps } from './deps.js';
import { viewerOf } from './viewer.js';

export const getDocumentUseCase =
  (deps: DocumentDeps): UseCaseOf<'get-document'> =>
  async ({ params, query }, ctx) => ({ document: deps.documents.reads.get(viewerOf(ctx), params.id, query) as never });
