import { createError } from '@godb/contract';
import { badRequest, unsupported } from './envelope.js';
import { canonicalId, compareIds, pointIdOf, type PointId } from './point-ids.js';
import { exactFilter } from './filter-prefilter.js';
import {
  collectionOf,
  documentsByIds,
  effectiveFilter,
  matchingDocuments,
  readyIndexes,
  recordOf,
  type StoredDoc,
} from './point-reads.js';
import {
  changePayloads,
  deleteDocuments,
  pointsOf,
  selectedDocuments,
  setAt,
  upsertPoints,
  vectorsOf,
} from './point-writes.js';
import { valueAt } from './filter-eval.js';
import { completed, type QdrantRoute } from './route.js';

/** Points: upsert, get, retrieve, delete, payload and vector changes, scroll and count. */
export const pointRoutes: QdrantRoute[] = [
  {
    method: 'PUT',
    url: '/collections/:name/points',
    handler: async ({ call, params, body }) => {
      const collection = await collectionOf(call, params.name);
      await upsertPoints(call, collection, pointsOf(body));
      return completed();
    },
  },
  {
    method: 'GET',
    url: '/collections/:name/points/:id',
    handler: async ({ call, params }) => {
      const collection = await collectionOf(call, params.name);
      const raw = /^\d+$/.test(params.id) ? Number(params.id) : params.id;
      const [doc] = await documentsByIds(call, collection.name, [raw], true);
      if (!doc) throw createError('NOT_FOUND', { resource: 'Point with id', id: canonicalId(raw) });
      return recordOf(collection, doc, true, true);
    },
  },
  {
    method: 'POST',
    url: '/collections/:name/points',
    handler: async ({ call, params, body }) => {
      const collection = await collectionOf(call, params.name);
      if (body.shard_key !== undefined && body.shard_key !== null) throw unsupported('shard_key (shard keys)');
      if (!Array.isArray(body.ids)) throw badRequest('ids is required');
      const withVector = body.with_vector ?? body.with_vectors ?? false;
      const docs = await documentsByIds(call, collection.name, body.ids, withVector !== false);
      return docs.map((doc) => recordOf(collection, doc, body.with_payload ?? true, withVector));
    },
  },
  {
    method: 'POST',
    url: '/collections/:name/points/delete',
    handler: async ({ call, params, body }) => {
      const collection = await collectionOf(call, params.name);
      await deleteDocuments(call, collection.name, await selectedDocuments(call, collection, body));
      return completed();
    },
  },
  {
    method: 'POST',
    url: '/collections/:name/points/payload',
    handler: async ({ call, params, body }) => {
      const collection = await collectionOf(call, params.name);
      const payload = payloadOf(body);
      const key = body.key;
      await changePayloads(call, await selectedDocuments(call, collection, body), (current) =>
        typeof key === 'string' ? setAt(current, key, payload) : { ...current, ...payload },
      );
      return completed();
    },
  },
  {
    method: 'PUT',
    url: '/collections/:name/points/payload',
    handler: async ({ call, params, body }) => {
      const collection = await collectionOf(call, params.name);
      const payload = payloadOf(body);
      await changePayloads(call, await selectedDocuments(call, collection, body), () => payload);
      return completed();
    },
  },
  {
    method: 'POST',
    url: '/collections/:name/points/payload/delete',
    handler: async ({ call, params, body }) => {
      const collection = await collectionOf(call, params.name);
      if (!Array.isArray(body.keys)) throw badRequest('keys is required');
      const keys = body.keys.map(String);
      await changePayloads(call, await selectedDocuments(call, collection, body), (current) =>
        Object.fromEntries(Object.entries(current).filter(([k]) => !keys.includes(k))),
      );
      return completed();
    },
  },
  {
    method: 'POST',
    url: '/collections/:name/points/payload/clear',
    handler: async ({ call, params, body }) => {
      const collection = await collectionOf(call, params.name);
      await changePayloads(call, await selectedDocuments(call, collection, body), () => ({}));
      return completed();
    },
  },
  {
    method: 'PUT',
    url: '/collections/:name/points/vectors',
    handler: async ({ call, params, body }) => {
      const collection = await collectionOf(call, params.name);
      if (body.shard_key !== undefined && body.shard_key !== null) throw unsupported('shard_key (shard keys)');
      if (!Array.isArray(body.points)) throw badRequest('points is required');
      const points = body.points as { id: unknown; vector: unknown }[];
      // Only existing points are updated (Qdrant answers 404 for another).
      const existing = await documentsByIds(
        call,
        collection.name,
        points.map((p) => p.id),
        false,
      );
      const ids = new Set(existing.map((d) => d.id));
      for (const point of points) {
        const id = `${collection.name}:${canonicalId(point.id)}`;
        if (!ids.has(id)) throw createError('NOT_FOUND', { resource: 'Point with id', id: canonicalId(point.id) });
        await call('update-document', { params: { id }, body: { vectors: vectorsOf(collection, point.vector) } });
      }
      return completed();
    },
  },
  {
    method: 'POST',
    url: '/collections/:name/points/vectors/delete',
    handler: async () => {
      throw unsupported('deleting one vector of a point (upsert the point without it instead)');
    },
  },
  {
    method: 'POST',
    url: '/collections/:name/points/scroll',
    handler: async ({ call, params, body }) => {
      const collection = await collectionOf(call, params.name);
      if (body.shard_key !== undefined && body.shard_key !== null) throw unsupported('shard_key (shard keys)');
      const limit = typeof body.limit === 'number' ? body.limit : 10;
      const withVector = body.with_vector ?? body.with_vectors ?? false;
      const docs = await matchingDocuments(call, collection, body.filter, withVector !== false);
      const record = (doc: StoredDoc) => recordOf(collection, doc, body.with_payload ?? true, withVector);
      if (body.order_by !== undefined && body.order_by !== null) {
        if (body.offset !== undefined && body.offset !== null) throw badRequest('offset cannot be used with order_by');
        return {
          points: ordered(docs, body.order_by)
            .slice(0, limit)
            .map(({ doc, value }) => ({ ...record(doc), order_value: value })),
          next_page_offset: null,
        };
      }
      const ids = docs.map((d) => pointIdOf(collection.name, d.id));
      let start = 0;
      if (body.offset !== undefined && body.offset !== null) {
        const from: PointId = typeof body.offset === 'number' ? body.offset : canonicalId(body.offset);
        start = ids.findIndex((id) => compareIds(id, from) >= 0);
        if (start < 0) start = ids.length;
      }
      const page = docs.slice(start, start + limit);
      return { points: page.map(record), next_page_offset: ids[start + limit] ?? null };
    },
  },
  {
    method: 'POST',
    url: '/collections/:name/points/count',
    handler: async ({ call, params, body }) => {
      const collection = await collectionOf(call, params.name);
      if (body.shard_key !== undefined && body.shard_key !== null) throw unsupported('shard_key (shard keys)');
      const filter = effectiveFilter(body.filter);
      const exact = filter === undefined ? undefined : exactFilter(collection.name, filter, readyIndexes(collection));
      if (filter === undefined || exact !== undefined) {
        const { count } = await call<{ count: number }>('count-documents', {
          body: { primary_table: collection.name, ...(exact && { filter: exact }) },
        });
        return { count };
      }
      return { count: (await matchingDocuments(call, collection, filter)).length };
    },
  },
];

function payloadOf(body: Record<string, unknown>): Record<string, unknown> {
  const payload = body.payload;
  if (!payload || typeof payload !== 'object' || Array.isArray(payload)) throw badRequest('payload must be an object');
  return payload as Record<string, unknown>;
}

/**
 * Qdrant's order_by: by a payload key's number (or datetime), ascending unless `direction: "desc"`, from
 * `start_from`; a point without a number at the key is left out. Ties by id.
 */
function ordered(docs: StoredDoc[], orderBy: unknown): { doc: StoredDoc; value: number }[] {
  const o =
    typeof orderBy === 'string'
      ? { key: orderBy }
      : (orderBy as { key?: unknown; direction?: unknown; start_from?: unknown });
  if (typeof o.key !== 'string') throw badRequest('order_by.key is required');
  const desc = o.direction === 'desc';
  const numberOf = (v: unknown) => (typeof v === 'number' ? v : typeof v === 'string' ? Date.parse(v) : Number.NaN);
  const from = o.start_from === undefined || o.start_from === null ? undefined : numberOf(o.start_from);
  const key = o.key;
  const rows = docs.flatMap((doc) => {
    const raw = valueAt(doc.metadata ?? {}, key);
    const values = (Array.isArray(raw) ? raw : [raw]).map(numberOf).filter((n) => !Number.isNaN(n));
    // A list orders its point by each value, as Qdrant does.
    return values.map((value) => ({ doc, value: Number(value) }));
  });
  return rows
    .filter(({ value }) => from === undefined || (desc ? value <= from : value >= from))
    .sort((a, b) => (desc ? b.value - a.value : a.value - b.value));
}
