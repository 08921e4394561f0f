import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { QdrantClient } from '@qdrant/js-client-rest';
import { startTestServer, type TestServer } from '../../../test-support/server.js';
import { cosine, freePort, tenantWithKey, testPoints, type TestPoint } from '../../../test-support/qdrant-points.js';

// Issue #43: the official Qdrant JS client, unmodified, against GoDB's Qdrant-compatible API; every answer compared
// with brute force over the same points and with GoDB's own API.

const dims = 8;
const points = testPoints(1000, dims);
let server: TestServer;
let client: QdrantClient;
let prefixed: QdrantClient;
let godbToken: string;
const collection = 'products';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- payloads are read freely in assertions
type Payload = Record<string, any>;
const byId = new Map(points.map((p) => [String(p.id), p]));
const sortIds = (ids: (string | number)[]) =>
  [...ids].sort((a, b) =>
    typeof a === 'number' && typeof b === 'number'
      ? a - b
      : typeof a === 'number'
        ? -1
        : typeof b === 'number'
          ? 1
          : a < b
            ? -1
            : 1,
  );

const km = (a: { lat: number; lon: number }, b: { lat: number; lon: number }) => {
  const r = Math.PI / 180;
  const h =
    Math.sin(((b.lat - a.lat) * r) / 2) ** 2 +
    Math.cos(a.lat * r) * Math.cos(b.lat * r) * Math.sin(((b.lon - a.lon) * r) / 2) ** 2;
  return 2 * 6371.0088 * Math.asin(Math.sqrt(h));
};
const someUuid = String(points[1]!.id);

/** Every filter kind of Qdrant's language, each with the predicate a person would write for it. */
const filterCases: { name: string; filter: Record<string, unknown>; keep: (p: TestPoint) => boolean }[] = [
  {
    name: 'match keyword',
    filter: { must: [{ key: 'city', match: { value: 'Oslo' } }] },
    keep: (p) => p.payload.city === 'Oslo',
  },
  {
    name: 'match integer',
    filter: { must: [{ key: 'count', match: { value: 42 } }] },
    keep: (p) => p.payload.count === 42,
  },
  {
    name: 'match bool',
    filter: { must: [{ key: 'in_stock', match: { value: true } }] },
    keep: (p) => p.payload.in_stock === true,
  },
  {
    name: 'match any on a list',
    filter: { must: [{ key: 'tags', match: { any: ['red', 'blue'] } }] },
    keep: (p) => (p.payload.tags as string[]).some((t) => t === 'red' || t === 'blue'),
  },
  {
    name: 'match except',
    filter: { must: [{ key: 'city', match: { except: ['Oslo', 'Lima'] } }] },
    keep: (p) => typeof p.payload.city === 'string' && !['Oslo', 'Lima'].includes(p.payload.city as string),
  },
  {
    name: 'match text',
    filter: { must: [{ key: 'description', match: { text: 'quiet' } }] },
    keep: (p) => (p.payload.description as string).includes('quiet'),
  },
  {
    name: 'range float',
    filter: { must: [{ key: 'price', range: { gte: 20, lt: 45.5 } }] },
    keep: (p) => (p.payload.price as number) >= 20 && (p.payload.price as number) < 45.5,
  },
  {
    name: 'range datetime',
    filter: { must: [{ key: 'created', range: { gt: '2024-03-01T00:00:00Z', lte: '2024-06-30T12:00:00+02:00' } }] },
    keep: (p) => {
      const t = Date.parse(p.payload.created as string);
      return t > Date.parse('2024-03-01T00:00:00Z') && t <= Date.parse('2024-06-30T10:00:00Z');
    },
  },
  {
    name: 'geo_radius',
    filter: { must: [{ key: 'location', geo_radius: { center: { lat: 50, lon: 10 }, radius: 600_000 } }] },
    keep: (p) => km(p.payload.location as { lat: number; lon: number }, { lat: 50, lon: 10 }) <= 600,
  },
  {
    name: 'geo_bounding_box',
    filter: {
      must: [
        { key: 'location', geo_bounding_box: { top_left: { lat: 55, lon: 0 }, bottom_right: { lat: 45, lon: 15 } } },
      ],
    },
    keep: (p) => {
      const { lat, lon } = p.payload.location as { lat: number; lon: number };
      return lat <= 55 && lat >= 45 && lon >= 0 && lon <= 15;
    },
  },
  {
    name: 'values_count',
    filter: { must: [{ key: 'tags', values_count: { gte: 2 } }] },
    keep: (p) => (p.payload.tags as string[]).length >= 2,
  },
  {
    name: 'is_empty',
    filter: { must: [{ is_empty: { key: 'tags' } }] },
    keep: (p) => (p.payload.tags as string[]).length === 0,
  },
  { name: 'is_null', filter: { must: [{ is_null: { key: 'note' } }] }, keep: (p) => p.payload.note === null },
  {
    name: 'is_empty on a missing or null field',
    filter: { must: [{ is_empty: { key: 'note' } }] },
    keep: (p) => p.payload.note === undefined || p.payload.note === null,
  },
  {
    name: 'has_id (integers and UUIDs)',
    filter: { must: [{ has_id: [0, 2, 998, someUuid] }] },
    keep: (p) => [0, 2, 998, someUuid].includes(p.id),
  },
  {
    name: 'nested key with dots',
    filter: { must: [{ key: 'specs.size.width', range: { lt: 10 } }] },
    keep: (p) => (p.payload.specs as Payload).size.width < 10,
  },
  {
    name: 'key into a list of objects',
    filter: { must: [{ key: 'parts[].name', match: { value: 'loud' } }] },
    keep: (p) => (p.payload.parts as Payload[]).some((x) => x.name === 'loud'),
  },
  {
    name: 'nested (each object on its own)',
    filter: {
      must: [
        {
          nested: {
            key: 'parts',
            filter: {
              must: [
                { key: 'name', match: { value: 'red' } },
                { key: 'qty', range: { gte: 3 } },
              ],
            },
          },
        },
      ],
    },
    keep: (p) => (p.payload.parts as Payload[]).some((x) => x.name === 'red' && x.qty >= 3),
  },
  {
    name: 'should',
    filter: {
      should: [
        { key: 'city', match: { value: 'Paris' } },
        { key: 'count', range: { lt: 5 } },
      ],
    },
    keep: (p) => p.payload.city === 'Paris' || (p.payload.count as number) < 5,
  },
  {
    name: 'must_not (a missing field does not match)',
    filter: { must_not: [{ key: 'city', match: { value: 'Pune' } }] },
    keep: (p) => p.payload.city !== 'Pune',
  },
  {
    name: 'min_should',
    filter: {
      min_should: {
        conditions: [
          { key: 'in_stock', match: { value: true } },
          { key: 'count', range: { gte: 50 } },
          { key: 'tags', match: { any: ['fast'] } },
        ],
        min_count: 2,
      },
    },
    keep: (p) =>
      [
        p.payload.in_stock === true,
        (p.payload.count as number) >= 50,
        (p.payload.tags as string[]).includes('fast'),
      ].filter(Boolean).length >= 2,
  },
  {
    name: 'groups nested in groups',
    filter: {
      must: [
        { key: 'in_stock', match: { value: false } },
        {
          should: [
            { key: 'city', match: { any: ['Kyiv', 'Lima'] } },
            { must_not: [{ key: 'price', range: { gt: 10 } }] },
          ],
        },
      ],
    },
    keep: (p) =>
      p.payload.in_stock === false &&
      (['Kyiv', 'Lima'].includes(p.payload.city as string) || !((p.payload.price as number) > 10)),
  },
];

/** The ids of the `limit` points nearest `vector` (cosine) among those `keep` allows: the brute-force answer. */
function bruteNearest(
  vector: number[],
  limit: number,
  keep: (p: TestPoint) => boolean = () => true,
  except: unknown[] = [],
) {
  return points
    .filter((p) => keep(p) && !except.includes(p.id))
    .map((p) => ({ id: p.id, score: cosine(vector, p.vector) }))
    .sort((a, b) => b.score - a.score)
    .slice(0, limit);
}

const query = (seed: number) => testPoints(1, dims, seed)[0]!.vector;

before(async () => {
  const port = await freePort();
  server = await startTestServer({ QDRANT_COMPAT_PORT: String(port), HOST: '127.0.0.1' });
  const tenant = await tenantWithKey(server);
  godbToken = tenant.token;
  client = new QdrantClient({ url: `http://127.0.0.1:${port}`, apiKey: tenant.key, checkCompatibility: false });
  const base = await server.listen();
  prefixed = new QdrantClient({ url: base, prefix: '/qdrant', apiKey: tenant.key, checkCompatibility: false });
  await client.createCollection(collection, {
    vectors: { size: dims, distance: 'Cosine' },
    hnsw_config: { m: 16, ef_construct: 100 },
  });
  for (let i = 0; i < points.length; i += 250) {
    await client.upsert(collection, { wait: true, points: points.slice(i, i + 250) });
  }
});
after(async () => {
  await server.close();
});

describe('collections', () => {
  test('the collection reads back in Qdrant’s shape, on both ports', async () => {
    const info = await client.getCollection(collection);
    assert.equal(info.status, 'green');
    assert.equal(info.points_count, 1000);
    assert.deepEqual(info.config.params.vectors, { size: dims, distance: 'Cosine' });
    assert.equal(info.config.hnsw_config.ef_construct, 100);
    assert.deepEqual((await prefixed.getCollections()).collections, [{ name: collection }]);
    assert.deepEqual(await client.collectionExists(collection), { exists: true });
    assert.deepEqual(await client.collectionExists('nope'), { exists: false });
    // The same collection through GoDB's own API, its HNSW settings mapped.
    const godb = await server.call('GET', `/api/v1/collections/${collection}`, godbToken);
    assert.equal(godb.body.documents, 1000);
    assert.deepEqual((godb.body.vectors as Payload).default.hnsw.ef_construction, 100);
  });

  test('named vectors, Euclid and Dot, update and delete', async () => {
    await client.createCollection('named', {
      vectors: { image: { size: 2, distance: 'Euclid' }, text: { size: 3, distance: 'Dot' } },
    });
    await client.upsert('named', {
      points: [
        { id: 1, vector: { image: [0, 0], text: [1, 0, 0] }, payload: { n: 1 } },
        { id: 2, vector: { image: [3, 4], text: [2, 0, 0] }, payload: { n: 2 } },
      ],
    });
    const near = await client.search('named', { vector: { name: 'image', vector: [0, 1] }, limit: 2 });
    assert.deepEqual(
      near.map((h) => h.id),
      [1, 2],
    );
    assert.ok(Math.abs(near[0]!.score - 1) < 1e-4, 'Euclid scores are distances');
    assert.ok(Math.abs(near[1]!.score - Math.hypot(3, 3)) < 1e-3);
    const dotted = await client.query('named', { query: [1, 1, 1], using: 'text', with_vector: true });
    assert.deepEqual(
      dotted.points.map((h) => [h.id, h.score]),
      [
        [2, 2],
        [1, 1],
      ],
    );
    assert.deepEqual(dotted.points[0]!.vector, { image: [3, 4], text: [2, 0, 0] });
    assert.equal(await client.updateCollection('named', { optimizers_config: { indexing_threshold: 10 } }), true);
    assert.equal(await client.deleteCollection('named'), true);
    assert.deepEqual(await client.collectionExists('named'), { exists: false });
  });

  test('what GoDB cannot honour answers 400 naming it', async () => {
    const refusals: [string, () => Promise<unknown>, RegExp][] = [
      [
        'sparse vectors',
        () => client.createCollection('s', { vectors: { size: 2, distance: 'Cosine' }, sparse_vectors: { s: {} } }),
        /sparse/,
      ],
      [
        'multivectors',
        () =>
          client.createCollection('m', {
            vectors: { size: 2, distance: 'Cosine', multivector_config: { comparator: 'max_sim' } },
          }),
        /multivector/,
      ],
      ['Manhattan', () => client.createCollection('d', { vectors: { size: 2, distance: 'Manhattan' } }), /Manhattan/],
      [
        'product quantization',
        () =>
          client.createCollection('q', {
            vectors: { size: 2, distance: 'Cosine' },
            quantization_config: { product: { compression: 'x4' } },
          }),
        /product quantization/,
      ],
      [
        'custom sharding',
        () => client.createCollection('c', { vectors: { size: 2, distance: 'Cosine' }, sharding_method: 'custom' }),
        /shard/,
      ],
      ['shard keys', () => client.upsert(collection, { points: [], shard_key: 'a' }), /shard_key/],
      [
        'a query ordered by a payload key',
        () => client.query(collection, { query: { order_by: 'price' } }),
        /order_by/,
      ],
      [
        'a geo payload index',
        () => client.createPayloadIndex(collection, { field_name: 'location', field_schema: 'geo' }),
        /geo/,
      ],
      ['best_score', () => client.recommend(collection, { positive: [0], strategy: 'best_score' }), /best_score/],
    ];
    for (const [feature, attempt, names] of refusals) {
      await assert.rejects(attempt(), (error: { status?: number; data?: { status?: { error?: string } } }) => {
        assert.equal(error.status, 400, feature);
        assert.match(error.data?.status?.error ?? '', names, feature);
        assert.match(error.data?.status?.error ?? '', /not supported/, feature);
        return true;
      });
    }
    assert.deepEqual(await client.collectionExists('s'), { exists: false });
  });

  test('a payload index is a GoDB field index', async () => {
    await client.createPayloadIndex(collection, { field_name: 'city', field_schema: 'keyword', wait: true });
    await client.createPayloadIndex(collection, { field_name: 'count', field_schema: { type: 'integer' } });
    const godb = await server.call('GET', `/api/v1/collections/${collection}`, godbToken);
    assert.deepEqual(godb.body.indexes, { 'metadata.city': 'keyword', 'metadata.count': 'integer' });
    const info = await client.getCollection(collection);
    assert.deepEqual(Object.keys(info.payload_schema).sort(), ['city', 'count']);
    assert.equal(info.payload_schema.city!.data_type, 'keyword');
    await client.deletePayloadIndex(collection, 'count');
    assert.deepEqual(Object.keys((await client.getCollection(collection)).payload_schema), ['city']);
  });
});

describe('every filter kind, against brute force', () => {
  for (const { name, filter, keep } of filterCases) {
    test(name, async () => {
      const expected = points.filter(keep).map((p) => p.id);
      assert.ok(expected.length > 0 && expected.length < points.length, `${name}: the case selects some points`);
      assert.equal((await client.count(collection, { filter, exact: true })).count, expected.length);
      const scrolled: (string | number)[] = [];
      let offset: string | number | null | undefined;
      do {
        const page = await client.scroll(collection, {
          filter,
          limit: 128,
          with_payload: false,
          ...(offset != null && { offset }),
        });
        scrolled.push(...page.points.map((p) => p.id));
        offset = page.next_page_offset as string | number | null | undefined;
      } while (offset != null);
      assert.deepEqual(scrolled, sortIds(expected));
      const vector = query(7);
      const found = await client.search(collection, { vector, filter, limit: 10 });
      const brute = bruteNearest(vector, 10, keep);
      assert.deepEqual(
        found.map((h) => h.id),
        brute.map((b) => b.id),
      );
      for (const [i, h] of found.entries()) assert.ok(Math.abs(h.score - brute[i]!.score) < 1e-4);
    });
  }
});

describe('points', () => {
  test('search, batch and query agree with brute force and with GoDB’s own vector search', async () => {
    const vector = query(3);
    const brute = bruteNearest(vector, 20);
    const found = await client.search(collection, { vector, limit: 20, with_payload: true });
    assert.deepEqual(
      found.map((h) => h.id),
      brute.map((b) => b.id),
    );
    assert.deepEqual(found[0]!.payload, byId.get(String(found[0]!.id))!.payload);
    const godb = await server.call('POST', '/api/v1/search/vector', godbToken, {
      primary_table: collection,
      vector,
      limit: 20,
      threshold: 0,
    });
    assert.deepEqual(
      (godb.body.results as { document_id: string }[]).map((r) => r.document_id),
      brute.map((b) => `${collection}:${b.id}`),
    );
    const paged = await client.search(collection, { vector, limit: 5, offset: 5, score_threshold: brute[7]!.score });
    assert.deepEqual(
      paged.map((h) => h.id),
      brute.slice(5, 8).map((b) => b.id),
    );
    const [one, two] = await client.searchBatch(collection, {
      searches: [
        { vector, limit: 3 },
        { vector: query(4), limit: 3 },
      ],
    });
    assert.deepEqual(
      one!.map((h) => h.id),
      brute.slice(0, 3).map((b) => b.id),
    );
    assert.deepEqual(
      two!.map((h) => h.id),
      bruteNearest(query(4), 3).map((b) => b.id),
    );
    const queried = await client.query(collection, { query: vector, limit: 4 });
    assert.deepEqual(
      queried.points.map((h) => h.id),
      brute.slice(0, 4).map((b) => b.id),
    );
    const nearestForm = await client.query(collection, { query: { nearest: vector }, limit: 4 });
    assert.deepEqual(
      nearestForm.points.map((h) => h.id),
      brute.slice(0, 4).map((b) => b.id),
    );
    // By id: that point's vector, the point itself left out.
    const example = points[10]!;
    const byExample = await client.query(collection, { query: example.id, limit: 3 });
    assert.deepEqual(
      byExample.points.map((h) => h.id),
      bruteNearest(example.vector, 3, () => true, [example.id]).map((b) => b.id),
    );
  });

  test('recommend with positive and negative examples (average_vector)', async () => {
    const [a, b, c] = [points[4]!, points[5]!, points[9]!];
    const unit = (v: number[]) => v.map((x) => x / Math.hypot(...v));
    const avg = (vs: number[][]) => vs[0]!.map((_, i) => vs.reduce((s, v) => s + v[i]!, 0) / vs.length);
    const pos = avg([unit(a.vector), unit(b.vector)]);
    const neg = unit(c.vector);
    const target = pos.map((p, i) => p + (p - neg[i]!));
    const expected = bruteNearest(target, 5, (p) => p.payload.in_stock === true, [a.id, b.id, c.id]).map((x) => x.id);
    const found = await client.recommend(collection, {
      positive: [a.id, b.id],
      negative: [c.id],
      limit: 5,
      filter: { must: [{ key: 'in_stock', match: { value: true } }] },
    });
    assert.deepEqual(
      found.map((h) => h.id),
      expected,
    );
    const viaQuery = await client.query(collection, {
      query: { recommend: { positive: [a.id, b.id], negative: [c.id] } },
      filter: { must: [{ key: 'in_stock', match: { value: true } }] },
      limit: 5,
    });
    assert.deepEqual(
      viaQuery.points.map((h) => h.id),
      expected,
    );
  });

  test('retrieve and get answer the id type the client sent, vectors unit length (Cosine)', async () => {
    const uuid = points[3]!;
    const got = await client.retrieve(collection, { ids: [0, uuid.id, 123456], with_vector: true });
    assert.deepEqual(
      got.map((r) => r.id),
      [0, uuid.id],
    );
    assert.equal(typeof got[0]!.id, 'number');
    const v = got[1]!.vector as number[];
    const norm = Math.hypot(...uuid.vector);
    for (const [i, x] of v.entries()) assert.ok(Math.abs(x - uuid.vector[i]! / norm) < 1e-6);
    assert.deepEqual(got[1]!.payload, uuid.payload);
    // An upper-case UUID is the same point.
    const upper = await client.retrieve(collection, { ids: [String(uuid.id).toUpperCase()] });
    assert.equal(upper[0]?.id, uuid.id);
  });

  test('scroll in id order and by a payload value (order_by)', async () => {
    const page = await client.scroll(collection, { limit: 3, with_payload: false });
    assert.deepEqual(
      page.points.map((p) => p.id),
      [0, 2, 4],
    );
    assert.equal(page.next_page_offset, 6);
    const byPrice = await client.scroll(collection, { limit: 5, order_by: { key: 'price', direction: 'desc' } });
    const expected = [...points].sort((a, b) => (b.payload.price as number) - (a.payload.price as number)).slice(0, 5);
    assert.deepEqual(
      byPrice.points.map((p) => p.payload?.price),
      expected.map((p) => p.payload.price),
    );
  });

  test('payload: set, overwrite, delete keys, clear; vectors: update', async () => {
    const [p, q] = [points[20]!.id, points[21]!.id];
    await client.setPayload(collection, { points: [p, q], payload: { colour: 'teal' }, wait: true });
    let [a] = await client.retrieve(collection, { ids: [p] });
    assert.deepEqual(a!.payload, { ...points[20]!.payload, colour: 'teal' });
    await client.setPayload(collection, { filter: { must: [{ has_id: [p] }] }, payload: { w: 3 }, key: 'specs.size' });
    [a] = await client.retrieve(collection, { ids: [p] });
    assert.deepEqual((a!.payload as Payload).specs.size, { ...(points[20]!.payload.specs as Payload).size, w: 3 });
    await client.overwritePayload(collection, { points: [p], payload: { only: 1 } });
    [a] = await client.retrieve(collection, { ids: [p] });
    assert.deepEqual(a!.payload, { only: 1 });
    await client.deletePayload(collection, { points: [q], keys: ['colour', 'city'] });
    const [b] = await client.retrieve(collection, { ids: [q] });
    const { city: _city, ...rest } = points[21]!.payload;
    assert.deepEqual(b!.payload, rest);
    await client.clearPayload(collection, { points: [q] });
    assert.deepEqual((await client.retrieve(collection, { ids: [q] }))[0]!.payload, {});
    const fresh = [1, 0, 0, 0, 0, 0, 0, 0];
    await client.updateVectors(collection, { points: [{ id: p, vector: fresh }] });
    const top = await client.search(collection, { vector: fresh, limit: 1 });
    assert.equal(top[0]!.id, p);
    assert.ok(Math.abs(top[0]!.score - 1) < 1e-6);
  });

  test('delete by ids and by filter, compared with GoDB’s own count', async () => {
    const before = (await client.count(collection)).count;
    await client.delete(collection, { points: [points[30]!.id, points[31]!.id], wait: true });
    assert.equal((await client.count(collection)).count, before - 2);
    assert.deepEqual(await client.retrieve(collection, { ids: [points[30]!.id] }), []);
    const filter = {
      must: [
        { key: 'city', match: { value: 'Kyiv' } },
        { key: 'count', range: { lt: 30 } },
      ],
    };
    const matching = (await client.count(collection, { filter })).count;
    assert.ok(matching > 0);
    await client.delete(collection, { filter });
    assert.equal((await client.count(collection, { filter })).count, 0);
    const godb = await server.call('POST', '/api/v1/documents/count', godbToken, { primary_table: collection });
    assert.equal(godb.body.count, before - 2 - matching);
    assert.equal((await client.count(collection)).count, before - 2 - matching);
  });
});

describe('auth', () => {
  test('a GoDB API key is needed, and sees only its tenant', async () => {
    const port = new URL(`http://${(server.qdrant!.server.address() as { port: number }).port}`);
    void port;
    const address = server.qdrant!.server.address() as { port: number };
    const anonymous = new QdrantClient({ url: `http://127.0.0.1:${address.port}`, checkCompatibility: false });
    await assert.rejects(anonymous.getCollections(), (e: { status?: number }) => e.status === 401);
    const other = await tenantWithKey(server);
    const stranger = new QdrantClient({
      url: `http://127.0.0.1:${address.port}`,
      apiKey: other.key,
      checkCompatibility: false,
    });
    assert.deepEqual((await stranger.getCollections()).collections, []);
    await assert.rejects(stranger.count(collection), (e: { status?: number }) => e.status === 404);
    // Authorization: Bearer works too (Qdrant's other header).
    const bearer = await fetch(`http://127.0.0.1:${address.port}/collections`, {
      headers: { authorization: `Bearer ${other.key}` },
    });
    assert.equal(bearer.status, 200);
    const body = (await bearer.json()) as { status: string; result: unknown };
    assert.equal(body.status, 'ok');
    const missing = await fetch(`http://127.0.0.1:${address.port}/collections/nope/points/count`, {
      method: 'POST',
      headers: { 'api-key': other.key, 'content-type': 'application/json' },
      body: '{}',
    });
    assert.equal(missing.status, 404);
    assert.match(
      ((await missing.json()) as { status: { error: string } }).status.error,
      /Not found: Collection `nope`/,
    );
  });
});
