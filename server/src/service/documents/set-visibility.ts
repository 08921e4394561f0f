import { refuseUnknownVisibility } from '../../engine/documents/access-changes.js';
import type { UseCaseOf } from '../context.js';
import type { DocumentDeps } from './deps.js';
import { enforce, mayChangeVisibility } from './document-policy.js';
import { viewerOf } from './viewer.js';

/**
 * Decided here, on this node's copy of the document: in cluster mode once the node has caught up with the log, and
 * before the change is published. The change carries the stamp of the access it was decided on, and every node
 * refuses it alike (ACCESS_CHANGED) if another change of that access came first in the log.
 */
export const setVisibilityUseCase =
  (deps: DocumentDeps): UseCaseOf<'set-visibility'> =>
  async ({ params, body }, ctx) => {
    refuseUnknownVisibility(body.visibility);
    const viewer = viewerOf(ctx);
    await deps.log.catchUp({ strong: true }, viewer.tenantId, ctx.signal);
    const facts = deps.documents.reads.accessFacts(viewer, params.id);
    enforce(mayChangeVisibility(viewer, facts));
    await deps.commands.change('setVisibility', viewer, params.id, body.visibility, facts.stamp);
    return { success: true, message: `Visibility set to ${body.visibility}` };
  };
