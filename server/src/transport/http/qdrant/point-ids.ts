import { createError } from '@godb/contract';

/** A Qdrant point id: an unsigned integer or a UUID. */
export type PointId = number | string;

const uuidPattern = /^(?:urn:uuid:)?\{?([0-9a-f]{8})-?([0-9a-f]{4})-?([0-9a-f]{4})-?([0-9a-f]{4})-?([0-9a-f]{12})\}?$/i;
const hyphenated = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * A point id in its one written form: an integer as its digits, a UUID lowercase and hyphenated (as Qdrant answers
 * it, whichever of its forms was sent). Anything else is Qdrant's 400.
 *
 * @example canonicalId('6F1C2A3E8B4D4C1E9F7A2D3B4C5E6F70') // '6f1c2a3e-8b4d-4c1e-9f7a-2d3b4c5e6f70'
 */
export function canonicalId(id: unknown): string {
  if (typeof id === 'number' && Number.isSafeInteger(id) && id >= 0) return String(id);
  if (typeof id === 'string') {
    const parts = uuidPattern.exec(id.trim());
    if (parts) return parts.slice(1).join('-').toLowerCase();
  }
  throw createError('VALIDATION_FAILED', {
    detail: `Unable to parse point id ${JSON.stringify(id)}: a point id is an unsigned integer or a UUID`,
  });
}

/**
 * The GoDB document id of a point. Qdrant's ids are per collection, GoDB's per tenant, so the collection's name
 * prefixes the id: point 7 of `books` is document `books:7`.
 */
export function documentIdOf(collection: string, id: unknown): string {
  return `${collection}:${canonicalId(id)}`;
}

/**
 * The point id of a GoDB document of `collection`: a number for digits, a UUID string for a UUID (the type the
 * client sent), else the document's own id as it is (a document written through GoDB's API under another id).
 */
export function pointIdOf(collection: string, documentId: string): PointId {
  const local = documentId.startsWith(`${collection}:`) ? documentId.slice(collection.length + 1) : documentId;
  if (/^\d{1,15}$/.test(local)) return Number(local);
  return local;
}

/** Qdrant's order of ids: integers ascending, then UUIDs (and other ids) as text. */
export function compareIds(a: PointId, b: PointId): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'number') return -1;
  if (typeof b === 'number') return 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Whether a canonical id is a UUID (for the messages that name one). */
export const isUuid = (id: string): boolean => hyphenated.test(id);
