import type { UseCaseOf } from '../context.js';
import type { DocumentDeps } from './deps.js';
import { viewerOf } from './viewer.js';

export const deleteDocumentUseCase =
  (deps: DocumentDeps): UseCaseOf<'delete-document'> =>
  async ({ params, query }, ctx) => {
    const count = await deps.documents.delete(viewerOf(ctx), params.id, query);
    const how = query.permanent ? 'permanently' : '(hidden; add permanent=true to remove it from the store)';
    const extra = count > 1 ? ` with ${count - 1} descendant document(s)` : '';
    return { success: true, message: `Document ${params.id}${extra} deleted ${how}` };
  };
