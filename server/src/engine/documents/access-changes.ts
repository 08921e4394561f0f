import { createError, visibilities, type AclChange, type AclEntry } from '@godb/contract';
import { accessStamp, activeOwners } from '../access/access.js';
import type { Db } from '../storage/database.js';
import { transaction, type TransactionListener } from '../storage/transaction.js';
import type { DocumentReads } from './document-reads.js';
import type { DocumentStore } from './document-store.js';
import type { DocumentFields, DocumentRow, Viewer } from './types.js';

export interface AccessChangesDeps {
  readonly db: Db;
  readonly text: TransactionListener;
  readonly store: DocumentStore;
  readonly reads: DocumentReads;
}

/** INVALID_VISIBILITY unless `visibility` is one of public, private, shared (checked before anything is read). */
export function refuseUnknownVisibility(visibility: string): void {
  if (!(visibilities as readonly string[]).includes(visibility)) {
    throw createError('INVALID_VISIBILITY', { value: visibility }, { field: 'body.visibility' });
  }
}

/**
 * Changes of who may read a document: its visibility and its ACL. Who may change them (owners) is decided by the
 * service before the operation is made, on the access stamped `decidedOn` (DocumentReads.accessFacts); the change
 * applies only if the document's access is still that one: another change of it may come first in the log, and
 * every node then refuses this one alike (ACCESS_CHANGED).
 */
export class AccessChanges {
  readonly #deps: AccessChangesDeps;

  constructor(deps: AccessChangesDeps) {
    this.#deps = deps;
  }

  /** Refuses a change decided on other access entries than the document has now (ACCESS_CHANGED). */
  #refuseChangedAccess(row: DocumentRow, decidedOn: string | undefined): void {
    if (decidedOn !== undefined && decidedOn !== accessStamp(this.#deps.store.access(row.seq))) {
      throw createError('ACCESS_CHANGED', { id: row.id });
    }
  }

  /** Sets a document's visibility (public, private or shared). */
  setVisibility(viewer: Viewer, id: string, visibility: string, decidedOn?: string): void {
    refuseUnknownVisibility(visibility);
    const { db, text, store, reads } = this.#deps;
    const row = reads.readable(viewer, id);
    this.#refuseChangedAccess(row, decidedOn);
    // In a transaction with the text index as listener: its in-memory statistics follow once the change commits.
    transaction(db, [text], () => store.setVisibility(row, visibility, reads.now()));
  }

  /** Adds (or replaces) entries, updates existing ones, or removes them; the last owner stays. */
  updateAcl(
    viewer: Viewer,
    id: string,
    operation: 'add' | 'update' | 'remove',
    entries: readonly AclChange[],
    decidedOn?: string,
  ): void {
    const { store, reads } = this.#deps;
    const row = reads.readable(viewer, id);
    this.#refuseChangedAccess(row, decidedOn);
    const now = reads.now();
    const access = store.access(row.seq);
    const acl = new Map(
      access
        .filter((a) => a.role !== 'list')
        .map((a) => [
          a.principal,
          {
            user_id: a.principal,
            role: a.role,
            ...(a.expires_at !== null && { expires_at: a.expires_at }),
          } as AclEntry,
        ]),
    );
    entries.forEach((entry, i) => {
      if (operation !== 'add' && !acl.has(entry.user_id)) {
        throw createError(
          'INVALID_ACL',
          { reason: `there is no ACL entry for user ${entry.user_id} to ${operation}` },
          { field: `body.acl[${i}].user_id` },
        );
      }
      if (operation === 'remove') {
        acl.delete(entry.user_id);
        return;
      }
      if (entry.role === undefined) {
        throw createError(
          'INVALID_ACL',
          { reason: `a role (owner, edit or view) is required to ${operation} an entry` },
          { field: `body.acl[${i}].role` },
        );
      }
      acl.set(entry.user_id, {
        user_id: entry.user_id,
        role: entry.role,
        ...(entry.expires_at !== undefined && { expires_at: entry.expires_at }),
      });
    });
    const next = [...acl.values()];
    if (
      activeOwners(
        next.map((e) => ({ principal: e.user_id, role: e.role, expires_at: e.expires_at ?? null })),
        now,
      ) === 0
    ) {
      throw createError('LAST_OWNER', { id });
    }
    const fields = JSON.parse(row.fields) as DocumentFields;
    store.setAccess(row.seq, next, fields.access_list ?? []);
  }
}
