import type { UseCaseOf } from '../context.js';
import type { DocumentDeps } from './deps.js';
import { viewerOf } from './viewer.js';

export const updateAclUseCase =
  (deps: DocumentDeps): UseCaseOf<'update-acl'> =>
  async ({ params, body }, ctx) => {
    await deps.documents.change('updateAcl', viewerOf(ctx), params.id, body.operation, body.acl);
    return { success: true, message: 'ACL updated' };
  };
