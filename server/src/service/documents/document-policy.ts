import { createError, type GoDBError } from '@godb/contract';
import { canEdit, isOwner, type DeletionFacts, type DocumentAccessFacts } from '../../engine/access/access.js';
import type { Viewer } from '../../engine/documents/types.js';

/** A decision: allowed, or the catalogue error the caller is answered. */
export type Decision = { readonly allowed: true } | { readonly allowed: false; readonly error: GoDBError };

/** What a decision looks at: the document's access entries (and when they were read), never more. */
export type PolicyFacts = Pick<DocumentAccessFacts, 'access' | 'now'>;

const allowed: Decision = { allowed: true };
const refused = (error: GoDBError): Decision => ({ allowed: false, error });

/**
 * Who may change a document's visibility: the edit or owner role on it (public documents are readable by
 * everyone, and reading one is not enough).
 *
 * @example mayChangeVisibility(viewer, documents.accessFacts(viewer, 'report'))
 */
export function mayChangeVisibility(viewer: Viewer, facts: PolicyFacts): Decision {
  return canEdit(facts.access, viewer, facts.now)
    ? allowed
    : refused(createError('FORBIDDEN', { reason: 'changing visibility needs the edit or owner role on the document' }));
}

/** Who may add, update or remove ACL entries: the owners only (an editor may not grant itself more). */
export function mayChangeAcl(viewer: Viewer, facts: PolicyFacts): Decision {
  return isOwner(facts.access, viewer, facts.now) ? allowed : refused(createError('ACL_OWNER_REQUIRED'));
}

/** Who may update a document (a new version with some fields changed): the edit or owner role on it. */
export function mayUpdate(viewer: Viewer, facts: PolicyFacts): Decision {
  return canEdit(facts.access, viewer, facts.now)
    ? allowed
    : refused(createError('FORBIDDEN', { reason: 'updating a document needs the edit or owner role on it' }));
}

/**
 * Who may write over an existing document (a new version under its id: add, batch and import): the edit or owner role
 * on it, also when it is soft-deleted (writing over it would archive someone else's document, which its owner could
 * then no longer purge, and reveal its version count). `field` names the id in the request.
 */
export function mayOverwrite(
  viewer: Viewer,
  facts: PolicyFacts & Pick<DocumentAccessFacts, 'id'>,
  field: string,
): Decision {
  return canEdit(facts.access, viewer, facts.now)
    ? allowed
    : refused(createError('FORBIDDEN', { reason: `document ${facts.id} exists and you cannot edit it` }, { field }));
}

/** Who may delete: the owner role on the document and, for a recursive delete, on every descendant it takes. */
export function mayDelete(viewer: Viewer, facts: DeletionFacts): Decision {
  const notOwned = facts.targets.find((target) => !isOwner(target.access, viewer, facts.now));
  return notOwned === undefined
    ? allowed
    : refused(createError('FORBIDDEN', { reason: `deleting ${notOwned.id} needs the owner role on it` }));
}

/**
 * Of the documents one batch of a delete by filter matched, those the caller may delete (`mayDelete` on each: the
 * owner role); the others are skipped and left in place, as the operation's answer says.
 */
export function deletable(viewer: Viewer, facts: DeletionFacts): DeletionFacts['targets'] {
  return facts.targets.filter((target) => mayDelete(viewer, { targets: [target], now: facts.now }).allowed);
}

/** Throws the refusal of a decision; use cases call it before they hand the engine its command. */
export function enforce(decision: Decision): void {
  if (!decision.allowed) throw decision.error;
}
