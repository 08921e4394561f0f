import type { DecidedOn } from '../../engine/access/access.js';
import type { PreparedDocument, Viewer } from '../../engine/documents/types.js';
import type { DocumentDeps } from './deps.js';
import { enforce, mayOverwrite } from './document-policy.js';

/**
 * Writes prepared (and embedded) documents once the service has decided the caller may write over those that exist
 * (`mayOverwrite`, on Documents.overwriteFacts read just before): the write carries the access stamps it was decided
 * on, and the engine refuses it (ACCESS_CHANGED) if one of them changed before it ran — in cluster mode, before the
 * operation was applied in log order. In cluster mode the facts are this node's, without catching up first (a write
 * taken by a node that is behind is still stored in the log, as before): a document written through another node
 * and not applied here yet makes the write ACCESS_CHANGED, which a retry (or `X-GoDB-Consistency: strong`) settles.
 *
 * @example await writeDocuments(deps, viewer, prepared, (i) => `body[${i}]`, ctx.signal);
 */
export function writeDocuments(
  deps: Pick<DocumentDeps, 'documents' | 'commands'>,
  viewer: Viewer,
  prepared: readonly PreparedDocument[],
  path: (i: number) => string,
  signal?: AbortSignal,
): Promise<{ id: string; version: number }[]> {
  const facts = deps.documents.reads.overwriteFacts(
    viewer,
    prepared.map((doc) => doc.id),
  );
  const stamps: [string, string][] = [];
  prepared.forEach((doc, i) => {
    const existing = facts.get(doc.id);
    if (!existing) return;
    enforce(mayOverwrite(viewer, existing, `${path(i)}.id`));
    stamps.push([doc.id, existing.stamp]);
  });
  // Object.fromEntries, not assignment: an id such as `__proto__` becomes a property of its own.
  const decidedOn: DecidedOn = Object.fromEntries(stamps);
  return deps.commands.write(viewer, prepared, path, { signal, decidedOn });
}

/**
 * Validates, chunks and embeds documents, then writes them all in one transaction (see writeDocuments): with one
 * invalid document, nothing is written; when `signal` aborts before the write, nothing is written.
 */
export async function addDocuments(
  deps: Pick<DocumentDeps, 'documents' | 'commands'>,
  viewer: Viewer,
  inputs: Parameters<DocumentDeps['documents']['preparation']['prepare']>[1],
  path: (i: number) => string,
  signal?: AbortSignal,
): Promise<{ id: string; version: number }[]> {
  const prepared = deps.documents.preparation.prepare(viewer, inputs, path);
  signal?.throwIfAborted();
  await deps.documents.preparation.embed(prepared, signal);
  signal?.throwIfAborted();
  return writeDocuments(deps, viewer, prepared, path, signal);
}
