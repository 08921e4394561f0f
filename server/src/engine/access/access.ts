import type { AccessEntry, Viewer } from './viewer.js';
import type { Visibility } from '@godb/contract';

const active = (entry: AccessEntry, now: number) => entry.expires_at === null || entry.expires_at > now;
const concerns = (entry: AccessEntry, viewer: Viewer) =>
  entry.principal === viewer.userId || viewer.groups.includes(entry.principal);

/**
 * The access rule, in one place (the engine enforces it for every read and search):
 * - public: everyone in the tenant;
 * - private: the owners and the ACL entries (users or groups);
 * - shared: the access list (users or groups) and the ACL entries.
 * Expired ACL entries stop counting. The creator of a document is its first owner (an ACL entry).
 */
export function canRead(visibility: Visibility, entries: readonly AccessEntry[], viewer: Viewer, now: number): boolean {
  if (visibility === 'public') return true;
  return entries.some((e) => active(e, now) && concerns(e, viewer) && (e.role !== 'list' || visibility === 'shared'));
}

export function canEdit(entries: readonly AccessEntry[], viewer: Viewer, now: number): boolean {
  return entries.some((e) => active(e, now) && concerns(e, viewer) && (e.role === 'owner' || e.role === 'edit'));
}

export function isOwner(entries: readonly AccessEntry[], viewer: Viewer, now: number): boolean {
  return entries.some((e) => active(e, now) && concerns(e, viewer) && e.role === 'owner');
}

export function activeOwners(entries: readonly AccessEntry[], now: number): number {
  return entries.filter((e) => e.role === 'owner' && active(e, now)).length;
}

/** What a write or a delete was decided on: the access stamp of each existing document it touches, by id. */
export type DecidedOn = Readonly<Record<string, string>>;

/**
 * The stamp a write or delete was decided on for document `id` (undefined: decided as not existing). Ids are the
 * caller's strings: only the record's own properties count, never Object.prototype's (`constructor`, `__proto__` …).
 *
 * @example decidedStamp({ constructor: 's1' }, 'constructor') // 's1'; decidedStamp({}, 'toString') // undefined
 */
export const decidedStamp = (decidedOn: DecidedOn, id: string): string | undefined =>
  Object.hasOwn(decidedOn, id) ? decidedOn[id] : undefined;

/** What a delete is decided on (Documents.deletion): the documents it takes, each with its access, and when read. */
export interface DeletionFacts {
  readonly targets: readonly { readonly id: string; readonly access: readonly AccessEntry[]; readonly stamp: string }[];
  readonly now: number;
}

export const principalsOf = (viewer: Viewer) => JSON.stringify([viewer.userId, ...viewer.groups]);

/** What a decision about a document is taken on (Documents.accessFacts). */
export interface DocumentAccessFacts {
  readonly id: string;
  /** An earlier version (`id@v2`): read-only. */
  readonly superseded: boolean;
  readonly access: readonly AccessEntry[];
  /** When the entries were read (expired entries stop counting), in the engine's clock. */
  readonly now: number;
  /** The entries as one string, equal on every node holding the same entries (see Documents.setVisibility). */
  readonly stamp: string;
}

/** The access entries as one comparable string, whatever order the store answered them in. */
export const accessStamp = (entries: readonly AccessEntry[]): string =>
  entries
    .map((e) => JSON.stringify([e.principal, e.role, e.expires_at]))
    .sort()
    .join('\n');
