import type { UseCaseOf } from '../context.js';
import type { DocumentDeps } from './deps.js';
import { enforce, mayDelete } from './document-policy.js';
import { viewerOf } from './viewer.js';

/**
 * Decided here (`mayDelete`: the owner role on each document it takes) on the documents as this node reads them, in
 * cluster mode once it caught up with the log; the delete carries their access stamps and runs only on those
 * documents with that access (ACCESS_CHANGED otherwise).
 */
export const deleteDocumentUseCase =
  (deps: DocumentDeps): UseCaseOf<'delete-document'> =>
  async ({ params, query }, ctx) => {
    const viewer = viewerOf(ctx);
    await deps.log.catchUp({ strong: true }, viewer.tenantId, ctx.signal);
    const facts = deps.documents.reads.deletion(viewer, params.id, query);
    enforce(mayDelete(viewer, facts));
    const decidedOn = Object.fromEntries(facts.targets.map((target) => [target.id, target.stamp]));
    const count = await deps.commands.delete(viewer, params.id, { ...query, decidedOn });
    const how = query.permanent ? 'permanently' : '(hidden; add permanent=true to remove it from the store)';
    const extra = count > 1 ? ` with ${count - 1} descendant document(s)` : '';
    return { success: true, message: `Document ${params.id}${extra} deleted ${how}` };
  };
