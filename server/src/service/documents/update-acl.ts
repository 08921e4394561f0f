import type { UseCaseOf } from '../context.js';
import type { DocumentDeps } from './deps.js';
import { enforce, mayChangeAcl } from './document-policy.js';
import { viewerOf } from './viewer.js';

/** Decided here before the change runs or is published (see set-visibility.ts). */
export const updateAclUseCase =
  (deps: DocumentDeps): UseCaseOf<'update-acl'> =>
  async ({ params, body }, ctx) => {
    const viewer = viewerOf(ctx);
    await deps.log.catchUp({ strong: true }, viewer.tenantId, ctx.signal);
    const facts = deps.documents.reads.accessFacts(viewer, params.id);
    enforce(mayChangeAcl(viewer, facts));
    await deps.commands.change('updateAcl', viewer, params.id, body.operation, body.acl, facts.stamp);
    return { success: true, message: 'ACL updated' };
  };
