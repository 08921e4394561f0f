import { maxSearchLimit } from '@godb/contract';
import { badRequest, unsupported } from './envelope.js';
import type { Call } from './godb-calls.js';
import { averageVector, nearest, vectorNameOf, type ScoredPoint } from './nearest.js';
import { canonicalId, documentIdOf } from './point-ids.js';
import { collectionOf, documentsByIds, type CollectionView } from './point-reads.js';
import { needsPipeline, runQueryPipeline, type ExampleVector, type GroupOptions } from './query-pipeline.js';
import type { QdrantRoute } from './route.js';

type Body = Record<string, unknown>;

/** Search settings that only tune speed in Qdrant (hnsw_ef, exact, indexed_only, quantization …): ignored. */
function checkCommon(body: Body): void {
  if (body.shard_key !== undefined && body.shard_key !== null) throw unsupported('shard_key (shard keys)');
  if (body.lookup_from !== undefined && body.lookup_from !== null) throw unsupported('lookup_from');
}

const limitOf = (body: Body) => (typeof body.limit === 'number' ? body.limit : 10);
const offsetOf = (body: Body) => (typeof body.offset === 'number' ? body.offset : 0);
const thresholdOf = (body: Body) => (typeof body.score_threshold === 'number' ? body.score_threshold : undefined);

/** A points/search body's `vector`: a list (the unnamed vector), or `{name, vector}` for a named one. */
function searchVector(body: Body): { vector: unknown; using: unknown } {
  const given = body.vector;
  if (!given || typeof given !== 'object' || Array.isArray(given)) return { vector: given, using: undefined };
  const named = given as { name?: unknown; vector?: unknown; indices?: unknown };
  if (named.indices !== undefined) throw unsupported('sparse vectors');
  return { vector: named.vector, using: named.name };
}

/** points/search: `vector` is a list, or `{name, vector}` for a named vector. */
async function search(call: Call, collection: CollectionView, body: Body): Promise<ScoredPoint[]> {
  checkCommon(body);
  const { vector, using } = searchVector(body);
  return nearest(call, collection, {
    vector: denseQuery(vector),
    using,
    filter: body.filter,
    limit: limitOf(body),
    offset: offsetOf(body),
    scoreThreshold: thresholdOf(body),
    withPayload: body.with_payload ?? false,
    withVector: body.with_vector ?? body.with_vectors ?? false,
  });
}

function denseQuery(v: unknown): number[] {
  if (!Array.isArray(v) || v.length === 0) throw badRequest('the query vector must be a list of numbers');
  if (v.some((x) => Array.isArray(x))) throw unsupported('multivector queries');
  if (v.some((x) => typeof x !== 'number' || !Number.isFinite(x)))
    throw badRequest('the query vector must be a list of numbers');
  return v as number[];
}

const isPointId = (v: unknown) => typeof v === 'number' || typeof v === 'string';

/** Examples (point ids or vectors) as vectors of the searched name; ids are also returned to leave out. */
async function examplesOf(call: Call, collection: CollectionView, name: string, examples: unknown[]) {
  const ids = examples.filter(isPointId);
  const docs = await documentsByIds(call, collection.name, ids, true);
  const byId = new Map(docs.map((d) => [d.id, d]));
  const vectors = examples.map((e) => {
    if (!isPointId(e)) return denseQuery(e);
    const doc = byId.get(documentIdOf(collection.name, e));
    const v = doc?.vectors?.[name];
    if (!v) throw badRequest(`No point with id ${canonicalId(e)} found`);
    return v;
  });
  return { vectors, ids: ids.map((id) => documentIdOf(collection.name, id)) };
}

/** points/recommend (average_vector, the default strategy): the examples themselves are left out. */
async function recommend(call: Call, collection: CollectionView, body: Body): Promise<ScoredPoint[]> {
  checkCommon(body);
  const strategy = body.strategy ?? 'average_vector';
  if (strategy !== 'average_vector')
    throw unsupported(`the recommendation strategy "${String(strategy)}" (average_vector is)`);
  const name = vectorNameOf(collection, body.using);
  const positive = Array.isArray(body.positive) ? body.positive : [];
  const negative = Array.isArray(body.negative) ? body.negative : [];
  if (positive.length === 0) throw unsupported('a recommendation without positive examples');
  const pos = await examplesOf(call, collection, name, positive);
  const neg = await examplesOf(call, collection, name, negative);
  return nearest(call, collection, {
    vector: averageVector(pos.vectors, neg.vectors, collection.vectors[name]?.distance === 'cosine'),
    using: name,
    filter: body.filter,
    limit: limitOf(body),
    offset: offsetOf(body),
    scoreThreshold: thresholdOf(body),
    withPayload: body.with_payload ?? false,
    withVector: body.with_vector ?? body.with_vectors ?? false,
    exclude: [...pos.ids, ...neg.ids],
  });
}

/** A point's vector of a name, for queries by example inside a pipeline. */
const exampleOf =
  (call: Call, collection: CollectionView): ExampleVector =>
  async (name, id) =>
    (await examplesOf(call, collection, name, [id])).vectors[0] ?? [];

/**
 * points/query, the universal API: a vector, `{nearest}`, a point id (its vector, the point left out) and
 * `{recommend}`; prefetch, fusion, rescoring and MMR run through GoDB's query pipeline (query-pipeline.ts).
 * Discovery, context, order_by, formulas and sampling answer 400 naming them.
 */
async function query(call: Call, collection: CollectionView, body: Body): Promise<{ points: ScoredPoint[] }> {
  checkCommon(body);
  if (needsPipeline(body))
    return { points: (await runQueryPipeline(call, collection, body, exampleOf(call, collection))).points };
  const q = body.query;
  if (q === undefined || q === null) throw unsupported('a query without `query`');
  const common = {
    filter: body.filter,
    limit: limitOf(body),
    offset: offsetOf(body),
    scoreThreshold: thresholdOf(body),
    withPayload: body.with_payload ?? false,
    withVector: body.with_vector ?? body.with_vectors ?? false,
  };
  const name = () => vectorNameOf(collection, body.using);
  if (Array.isArray(q))
    return { points: await nearest(call, collection, { ...common, vector: denseQuery(q), using: body.using }) };
  if (isPointId(q)) return { points: await byExample(call, collection, name(), q, common) };
  const kind = Object.keys(q as object)[0];
  if (kind === 'nearest') {
    const { nearest: target } = q as { nearest: unknown };
    if (isPointId(target)) return { points: await byExample(call, collection, name(), target, common) };
    return { points: await nearest(call, collection, { ...common, vector: denseQuery(target), using: body.using }) };
  }
  if (kind === 'recommend') {
    const r = (q as { recommend: Body }).recommend;
    return { points: await recommend(call, collection, { ...body, ...r, query: undefined }) };
  }
  throw unsupported(`the query kind \`${kind ?? ''}\``);
}

async function byExample(
  call: Call,
  collection: CollectionView,
  name: string,
  id: unknown,
  common: Omit<Parameters<typeof nearest>[2], 'vector'>,
) {
  const { vectors, ids } = await examplesOf(call, collection, name, [id]);
  return nearest(call, collection, { ...common, vector: vectors[0] ?? [], using: name, exclude: ids });
}

/** group_by, group_size and limit of a groups request (Qdrant: the groups' key, hits per group, groups). */
function groupOptions(body: Body, defaultSize: number): GroupOptions {
  if (typeof body.group_by !== 'string' || body.group_by === '') throw badRequest('group_by is required');
  if (body.with_lookup !== undefined && body.with_lookup !== null) throw unsupported('with_lookup');
  const size = body.group_size ?? defaultSize;
  const limit = body.limit ?? 10;
  if (typeof size !== 'number' || !Number.isInteger(size) || size < 1 || size > 100)
    throw badRequest('group_size must be an integer from 1 to 100');
  if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > maxSearchLimit)
    throw badRequest(`limit must be an integer from 1 to ${maxSearchLimit}`);
  return { field: body.group_by, size, limit };
}

/** points/search/groups: the search's vector as a nearest query, grouped by the pipeline's group_by. */
async function searchGroups(call: Call, collection: CollectionView, body: Body) {
  checkCommon(body);
  const { vector, using } = searchVector(body);
  const query = { ...body, query: denseQuery(vector), using, vector: undefined };
  const { groups } = await runQueryPipeline(
    call,
    collection,
    query,
    exampleOf(call, collection),
    groupOptions(body, 1),
  );
  return { groups };
}

/** points/query/groups: any query the pipeline maps, grouped. */
async function queryGroups(call: Call, collection: CollectionView, body: Body) {
  checkCommon(body);
  if (body.query && typeof body.query === 'object' && 'recommend' in body.query)
    throw unsupported('recommend in query/groups');
  const { groups } = await runQueryPipeline(call, collection, body, exampleOf(call, collection), groupOptions(body, 3));
  return { groups };
}

const searchesOf = (body: Body): Body[] => {
  if (!Array.isArray(body.searches)) throw badRequest('searches is required');
  return body.searches as Body[];
};

/** Searches: search, recommend and query, each also in batches, and grouped search and query. */
export const searchRoutes: QdrantRoute[] = [
  ...(
    [
      ['search', searchGroups],
      ['query', queryGroups],
    ] as const
  ).map(([kind, run]): QdrantRoute => ({
    method: 'POST',
    url: `/collections/:name/points/${kind}/groups`,
    handler: async ({ call, params, body }) => run(call, await collectionOf(call, params.name), body),
  })),
  ...(
    [
      ['search', search],
      ['recommend', recommend],
      ['query', query],
    ] as const
  ).flatMap(([kind, run]): QdrantRoute[] => [
    {
      method: 'POST',
      url: `/collections/:name/points/${kind}`,
      handler: async ({ call, params, body }) => run(call, await collectionOf(call, params.name), body),
    },
    {
      method: 'POST',
      url: `/collections/:name/points/${kind}/batch`,
      handler: async ({ call, params, body }) => {
        const collection = await collectionOf(call, params.name);
        const answers: unknown[] = [];
        for (const one of searchesOf(body)) answers.push(await run(call, collection, one));
        return answers;
      },
    },
  ]),
];
