import { isGoDBError } from '@godb/contract';
import { isUnnamed, unnamedVector } from './collection-config.js';
import { badRequest, collectionNotFound } from './envelope.js';
import { matchesQdrantFilter } from './filter-eval.js';
import {
  exactFilter,
  narrowingClauses,
  type GoDBClause,
  type GoDBGroup,
  type ReadyIndexes,
} from './filter-prefilter.js';
import type { Call } from './godb-calls.js';
import { canonicalId, compareIds, documentIdOf, pointIdOf, type PointId } from './point-ids.js';

/** A GoDB document as scroll answers it (the fields read here). */
export interface StoredDoc {
  readonly id: string;
  readonly version: number;
  readonly metadata?: Record<string, unknown>;
  readonly vectors?: Record<string, number[]>;
}

export interface CollectionView {
  readonly name: string;
  readonly vectors: Record<string, { dimensions: number; distance: string }>;
  readonly documents: number;
  readonly indexes?: Record<string, string>;
  /** Tenant admins: each field index's state (only a ready index makes a filter exact, see exactFilter). */
  readonly field_indexes?: Record<string, { kind: string; state: string }>;
}

/** The collection's ready field indexes, by field. */
export function readyIndexes(collection: CollectionView): ReadyIndexes {
  return Object.fromEntries(
    Object.entries(collection.field_indexes ?? {}).flatMap(([field, index]) =>
      index.state === 'ready' ? [[field, index.kind]] : [],
    ),
  );
}

/** A filter without any condition (`{must: []}`, what LlamaIndex sends) filters nothing. */
export function effectiveFilter(filter: unknown): unknown {
  if (!filter || typeof filter !== 'object' || Array.isArray(filter)) return filter ?? undefined;
  const f = filter as Record<string, unknown>;
  const some = (v: unknown) => v !== undefined && v !== null && (!Array.isArray(v) || v.length > 0);
  return some(f.must) || some(f.should) || some(f.must_not) || some(f.min_should) ? filter : undefined;
}

/** The collection, or Qdrant's 404 (GoDB would create a collection a document names; Qdrant does not). */
export async function collectionOf(call: Call, name: string): Promise<CollectionView> {
  try {
    return await call<CollectionView>('get-collection', { params: { name } });
  } catch (error) {
    if (isGoDBError(error) && error.status === 404) throw collectionNotFound(name);
    throw error;
  }
}

/** Beyond this many points, a scan (order_by, a filter GoDB cannot apply itself) is refused rather than slow. */
export const maxScannedPoints = 200_000;

/** Every document of the collection matching `clauses` (all pages of GoDB's scroll). */
async function scan(
  call: Call,
  collection: string,
  clauses: GoDBClause[] | GoDBGroup | undefined,
  withVectors: boolean,
) {
  const docs: StoredDoc[] = [];
  let cursor: string | undefined;
  do {
    const page = await call<{ documents: StoredDoc[]; next_cursor?: string }>('scroll-documents', {
      body: {
        primary_table: collection,
        limit: 1000,
        with_vectors: withVectors,
        ...(clauses && { filter: clauses }),
        ...(cursor !== undefined && { cursor }),
      },
    });
    docs.push(...page.documents);
    cursor = page.next_cursor;
    if (docs.length > maxScannedPoints) {
      throw badRequest(`this request reads more than ${maxScannedPoints} points; narrow its filter`);
    }
  } while (cursor !== undefined);
  return docs;
}

/**
 * The points matching a Qdrant filter, exactly: GoDB's filters narrow the candidates (filter-prefilter.ts), Qdrant's
 * semantics decide (filter-eval.ts). Sorted by id, as Qdrant scrolls.
 */
export async function matchingDocuments(
  call: Call,
  collection: CollectionView,
  given: unknown,
  withVectors = false,
): Promise<StoredDoc[]> {
  const filter = effectiveFilter(given);
  const name = collection.name;
  const exact = filter === undefined ? undefined : exactFilter(name, filter, readyIndexes(collection));
  const docs = await scan(call, name, exact ?? narrowingClauses(name, filter), withVectors);
  const found =
    filter === undefined || exact !== undefined
      ? docs
      : docs.filter((doc) =>
          matchesQdrantFilter(filter, { id: String(pointIdOf(name, doc.id)), payload: doc.metadata ?? {} }),
        );
  return found.sort((a, b) => compareIds(pointIdOf(name, a.id), pointIdOf(name, b.id)));
}

/** The documents of these point ids that exist, in the order of the ids. */
export async function documentsByIds(
  call: Call,
  collection: string,
  ids: readonly unknown[],
  withVectors: boolean,
): Promise<StoredDoc[]> {
  if (ids.length === 0) return [];
  const wanted = ids.map((id) => documentIdOf(collection, id));
  const docs = await scan(call, collection, [{ field: 'id', operator: 'in', value: wanted }], withVectors);
  const byId = new Map(docs.map((d) => [d.id, d]));
  return [...new Set(wanted)].flatMap((id) => {
    const doc = byId.get(id);
    return doc ? [doc] : [];
  });
}

/** What `with_payload` asks for: everything, nothing, some keys (`[...]`, `{include}`) or all but some (`{exclude}`). */
export function selectPayload(payload: Record<string, unknown>, selector: unknown): Record<string, unknown> | null {
  if (selector === false || selector === undefined || selector === null) return null;
  if (selector === true) return payload;
  const pick = (keys: unknown[]) =>
    Object.fromEntries(
      Object.entries(payload).filter(([k]) => keys.some((key) => key === k || String(key).split('.')[0] === k)),
    );
  if (Array.isArray(selector)) return pick(selector);
  const s = selector as { include?: unknown; exclude?: unknown };
  if (Array.isArray(s.include)) return pick(s.include);
  if (Array.isArray(s.exclude)) {
    const excluded = s.exclude;
    return Object.fromEntries(Object.entries(payload).filter(([k]) => !excluded.includes(k)));
  }
  throw badRequest('with_payload must be true, false, a list of keys, {include} or {exclude}');
}

/**
 * What `with_vector` asks for, in Qdrant's shape: the unnamed vector as a list, named vectors as `{name: list}`.
 * Cosine vectors are answered unit length, as Qdrant stores them.
 */
export function selectVectors(
  collection: CollectionView,
  vectors: Record<string, number[]> | undefined,
  selector: unknown,
): unknown {
  if (selector === false || selector === undefined || selector === null) return null;
  const all = vectors ?? {};
  const shaped = (name: string) => {
    const v = all[name];
    if (!v) return undefined;
    return collection.vectors[name]?.distance === 'cosine' ? unit(v) : v;
  };
  if (isUnnamed(collection.vectors))
    return selector === true || (Array.isArray(selector) && selector.includes(''))
      ? (shaped(unnamedVector) ?? null)
      : null;
  const names =
    selector === true ? Object.keys(collection.vectors) : Array.isArray(selector) ? selector.map(String) : [];
  return Object.fromEntries(names.flatMap((n) => (all[n] ? [[n, shaped(n)]] : [])));
}

export function unit(v: readonly number[]): number[] {
  const norm = Math.hypot(...v);
  return norm === 0 ? [...v] : v.map((x) => Math.fround(x / norm));
}

/** A stored document as Qdrant's Record. */
export function recordOf(
  collection: CollectionView,
  doc: StoredDoc,
  withPayload: unknown,
  withVector: unknown,
): { id: PointId; payload: Record<string, unknown> | null; vector: unknown } {
  return {
    id: pointIdOf(collection.name, doc.id),
    payload: selectPayload(doc.metadata ?? {}, withPayload),
    vector: selectVectors(collection, doc.vectors, withVector),
  };
}

/** The ids a points selector names: `{points: [...]}` or a list; canonical, for comparisons. */
export const canonicalIds = (ids: readonly unknown[]): string[] => ids.map((id) => canonicalId(id));
