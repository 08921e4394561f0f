import { isUnnamed, unnamedVector } from './collection-config.js';
import { badRequest, unsupported } from './envelope.js';
import type { Call } from './godb-calls.js';
import { documentIdOf } from './point-ids.js';
import { documentsByIds, matchingDocuments, type CollectionView, type StoredDoc } from './point-reads.js';

/** A point's vectors as GoDB's `vectors: {name: [...]}`; sparse vectors, multivectors and inference objects are 400. */
export function vectorsOf(collection: CollectionView, vector: unknown): Record<string, number[]> {
  if (vector === undefined || vector === null) return {};
  if (Array.isArray(vector)) {
    if (!isUnnamed(collection.vectors))
      throw badRequest('this collection has named vectors: give `vector: {name: [...]}`');
    return { [unnamedVector]: denseOf(vector, unnamedVector) };
  }
  if (typeof vector !== 'object') throw badRequest('vector must be a list of numbers or {name: list}');
  const named = vector as Record<string, unknown>;
  if ('indices' in named && 'values' in named) throw unsupported('sparse vectors');
  if (typeof named.model === 'string' && !Array.isArray(named.model))
    throw unsupported('inference objects (give the vector itself)');
  return Object.fromEntries(
    Object.entries(named).map(([name, v]) => {
      const target = name === '' ? unnamedVector : name;
      if (!(target in collection.vectors)) throw badRequest(`Wrong input: Not existing vector name error: ${name}`);
      return [target, denseOf(v, name)];
    }),
  );
}

function denseOf(v: unknown, name: string): number[] {
  if (v && typeof v === 'object' && !Array.isArray(v) && 'indices' in v) throw unsupported('sparse vectors');
  if (!Array.isArray(v)) throw badRequest(`vector ${name} must be a list of numbers`);
  if (v.some((x) => Array.isArray(x))) throw unsupported('multivectors');
  if (v.some((x) => typeof x !== 'number')) throw badRequest(`vector ${name} must be a list of numbers`);
  return v as number[];
}

interface PointInput {
  id: unknown;
  vector?: unknown;
  payload?: Record<string, unknown> | null;
}

/** `{points: [...]}` or Qdrant's columnar `{batch: {ids, vectors, payloads}}` as one list. */
export function pointsOf(body: Record<string, unknown>): PointInput[] {
  if (body.shard_key !== undefined && body.shard_key !== null) throw unsupported('shard_key (shard keys)');
  if (Array.isArray(body.points)) return body.points as PointInput[];
  const batch = body.batch as { ids?: unknown[]; vectors?: unknown; payloads?: unknown[] } | undefined;
  if (batch && Array.isArray(batch.ids)) {
    const vectors = batch.vectors;
    return batch.ids.map((id, i) => ({
      id,
      vector: Array.isArray(vectors)
        ? vectors[i]
        : vectors && typeof vectors === 'object'
          ? Object.fromEntries(Object.entries(vectors).map(([n, list]) => [n, (list as unknown[])[i]]))
          : undefined,
      payload: batch.payloads?.[i] as Record<string, unknown> | undefined,
    }));
  }
  throw badRequest('give `points: [...]` or `batch: {ids, vectors, payloads}`');
}

/** Upserts points: each a whole GoDB document of the collection (its payload the metadata), replaced if it exists. */
export async function upsertPoints(call: Call, collection: CollectionView, points: PointInput[]): Promise<void> {
  if (points.length === 0) return;
  const docs = points.map((p) => {
    if (p.payload !== undefined && p.payload !== null && (typeof p.payload !== 'object' || Array.isArray(p.payload))) {
      throw badRequest('payload must be an object');
    }
    return {
      id: documentIdOf(collection.name, p.id),
      primary_table: collection.name,
      metadata: p.payload ?? {},
      vectors: vectorsOf(collection, p.vector),
    };
  });
  for (let i = 0; i < docs.length; i += 10_000) {
    await call('batch-add-documents', { body: docs.slice(i, i + 10_000) });
  }
}

/** The documents a selector names: `points: [ids]` or `filter`. */
export async function selectedDocuments(
  call: Call,
  collection: CollectionView,
  body: Record<string, unknown>,
  withVectors = false,
): Promise<StoredDoc[]> {
  if (body.shard_key !== undefined && body.shard_key !== null) throw unsupported('shard_key (shard keys)');
  if (Array.isArray(body.points)) return documentsByIds(call, collection.name, body.points, withVectors);
  if (body.filter !== undefined && body.filter !== null) {
    return matchingDocuments(call, collection, body.filter, withVectors);
  }
  throw badRequest('give `points: [ids]` or `filter`');
}

/** Deletes documents, permanently (Qdrant's deletes are). */
export async function deleteDocuments(call: Call, collection: string, docs: readonly StoredDoc[]): Promise<void> {
  for (let i = 0; i < docs.length; i += 1000) {
    const ids = docs.slice(i, i + 1000).map((d) => d.id);
    await call('delete-documents', {
      body: { primary_table: collection, filter: [{ field: 'id', operator: 'in', value: ids }], permanent: true },
    });
  }
}

/** Replaces each document's metadata by what `change` makes of it (a new version; vectors and content kept). */
export async function changePayloads(
  call: Call,
  docs: readonly StoredDoc[],
  change: (payload: Record<string, unknown>) => Record<string, unknown>,
): Promise<void> {
  for (const doc of docs) {
    await call('update-document', { params: { id: doc.id }, body: { metadata: change({ ...doc.metadata }) } });
  }
}

/** Sets `value` at a Qdrant key inside a payload (`set_payload` with `key`), creating objects on the way. */
export function setAt(
  payload: Record<string, unknown>,
  key: string,
  value: Record<string, unknown>,
): Record<string, unknown> {
  const parts = key.split('.');
  let at: Record<string, unknown> = payload;
  for (const part of parts) {
    const next = at[part];
    at[part] = next && typeof next === 'object' && !Array.isArray(next) ? { ...(next as object) } : {};
    at = at[part] as Record<string, unknown>;
  }
  Object.assign(at, value);
  return payload;
}
