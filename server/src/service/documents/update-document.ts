import type { UseCaseOf } from '../context.js';
import type { DocumentDeps } from './deps.js';
import { enforce, mayUpdate } from './document-policy.js';
import { viewerOf } from './viewer.js';

export const updateDocumentUseCase =
  (deps: DocumentDeps): UseCaseOf<'update-document'> =>
  async ({ params, body }, ctx) => {
    const viewer = viewerOf(ctx);
    // Decided before the new version is prepared (and embedded), on the access it carries (`facts.stamp`: another
    // access by then is refused, ACCESS_CHANGED); in cluster mode writing it also checks the version it was prepared
    // from (DOCUMENT_CHANGED), on every node alike. An earlier version (`id@v2`) is left to the engine, which refuses
    // it as invalid input first, as it always did.
    const facts = deps.documents.reads.accessFacts(viewer, params.id);
    if (!facts.superseded) enforce(mayUpdate(viewer, facts));
    const { id, version } = await deps.commands.patch(
      viewer,
      params.id,
      { ...body, location: body.location as [number, number] | undefined },
      ctx.signal,
      facts.superseded ? undefined : facts.stamp,
    );
    return { success: true as const, document_id: id, version };
  };
