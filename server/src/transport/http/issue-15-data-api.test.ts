import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../../test-support/server.js';

type Doc = { id: string; version: number; metadata?: Record<string, unknown>; vectors?: Record<string, number[]> };

let server: TestServer;
let admin: Awaited<ReturnType<TestServer['registerTenant']>>;
let alice: Awaited<ReturnType<TestServer['addUser']>>;
let bob: Awaited<ReturnType<TestServer['addUser']>>;

const call: TestServer['call'] = (...args) => server.call(...args);
const count = async (token: string, body: Record<string, unknown>) => {
  const res = await call('POST', '/api/v1/documents/count', token, body);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.count as number;
};

/** Products: price, nested stock, colours (a list), a location, and a 2-d vector; owned by alice unless noted. */
const products = [
  { id: 'p-red', metadata: { price: 30, stock: { available: true, count: 4 }, colours: ['red'] }, tags: ['shoe'] },
  {
    id: 'p-blue',
    metadata: { price: 60, stock: { available: true, count: 1 }, colours: ['blue', 'navy'] },
    tags: ['shoe'],
  },
  { id: 'p-green', metadata: { price: 45, stock: { available: false, count: 0 }, colours: ['green'] }, tags: ['hat'] },
  { id: 'p-old', metadata: { price: 10, discontinued: true }, tags: ['hat'], location: [48.85, 2.35] },
];

before(async () => {
  server = await startTestServer();
  admin = await server.registerTenant();
  alice = await server.addUser(admin);
  bob = await server.addUser(admin);
  await call('POST', '/api/v1/collections', admin.token, { name: 'shop', vectors: { v: { dimensions: 2 } } });
  /** A product in the shop, titled by its id, as `token`'s user. */
  const addProduct = async (token: string, product: { id: string } & Record<string, unknown>, vector: number[]) => {
    const res = await call('POST', '/api/v1/documents', token, {
      ...product,
      title: product.id,
      primary_table: 'shop',
      vector,
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
  };
  for (const [i, p] of products.entries()) await addProduct(alice.token, p, [1, i]);
  // Bob's private product: never counted, scrolled or deleted for alice.
  await addProduct(
    bob.token,
    { id: 'p-secret', visibility: 'private', metadata: { price: 30 }, tags: ['shoe'] },
    [1, 0],
  );
});
after(async () => {
  await server.close();
});

describe('one filter grammar', () => {
  test('nested groups, nested metadata keys, lists, geo and dates', async () => {
    const shop = { primary_table: 'shop' };
    assert.equal(await count(alice.token, shop), 4);
    assert.equal(await count(bob.token, shop), 5);
    assert.equal(await count(alice.token, { ...shop, filter: [{ field: 'tags', operator: 'eq', value: 'shoe' }] }), 2);
    assert.equal(
      await count(alice.token, {
        ...shop,
        filter: { must: [{ field: 'metadata.stock.available', operator: 'eq', value: true }] },
      }),
      2,
    );
    // (price < 50 AND in stock) OR blue, but not discontinued.
    const group = {
      should: [
        {
          must: [
            { field: 'metadata.price', operator: 'lt', value: 50 },
            { field: 'metadata.stock.count', operator: 'gt', value: 0 },
          ],
        },
        { field: 'metadata.colours', operator: 'eq', value: 'blue' },
      ],
      must_not: [{ field: 'metadata.discontinued', operator: 'eq', value: true }],
    };
    assert.equal(await count(alice.token, { ...shop, filter: group }), 2);
    // The same as JSON text, as the playground sends it.
    assert.equal(await count(alice.token, { ...shop, filter: JSON.stringify(group) }), 2);
    assert.equal(
      await count(alice.token, {
        ...shop,
        filter: [{ field: 'location', operator: 'geo_radius', value: { lat: 48.86, lon: 2.34, radius: 5 } }],
      }),
      1,
    );
    assert.equal(
      await count(alice.token, { ...shop, filter: [{ field: 'created_at', operator: 'gte', value: '2000-01-01' }] }),
      4,
    );
    assert.equal(
      await count(alice.token, { ...shop, filter: [{ field: 'id', operator: 'in', value: ['p-red', 'x'] }] }),
      1,
    );

    // Every search kind takes the same grammar: vector search applies a group.
    const vector = await call('POST', '/api/v1/search/vector', alice.token, {
      ...shop,
      vector: [1, 0],
      threshold: 0,
      filters: group,
    });
    assert.deepEqual((vector.body.results as { document_id: string }[]).map((r) => r.document_id).sort(), [
      'p-blue',
      'p-red',
    ]);
    const text = await call('POST', '/api/v1/search/text', alice.token, {
      query: 'p',
      query_type: 'wildcard',
      ...shop,
      filters: { must_not: [{ field: 'tags', operator: 'eq', value: 'shoe' }] },
    });
    assert.equal(text.status, 200, JSON.stringify(text.body));
  });

  test('a bad filter is a 400 naming where it is', async () => {
    const cases: [unknown, string][] = [
      [{ must: [{ field: 'nope', operator: 'eq', value: 1 }] }, 'body.filter.must[0].field'],
      [{ must: [{ field: 'tags', operator: 'near', value: 1 }] }, 'body.filter'],
      [{ must: [{ field: 'location', operator: 'geo_radius', value: { lat: 1 } }] }, 'body.filter.must[0].value'],
      ['{"must": [', 'body.filter'],
      [{ must: [{ must: [{ must: [{ must: [{ field: 'tags', value: 'x' }] }] }] }] }, 'body.filter'],
    ];
    for (const [filter, field] of cases) {
      const res = await call('POST', '/api/v1/documents/count', alice.token, { primary_table: 'shop', filter });
      assert.equal(res.status, 400, JSON.stringify(filter));
      assert.ok(res.body.error?.field?.startsWith(field), `${res.body.error?.field} for ${JSON.stringify(filter)}`);
    }
  });
});

describe('scroll', () => {
  test('pages through a collection larger than a page while writes happen, each document once', async () => {
    await call('POST', '/api/v1/collections', admin.token, { name: 'big', vectors: { v: { dimensions: 2 } } });
    const batch = Array.from({ length: 250 }, (_, i) => ({
      id: `big-${String(i).padStart(3, '0')}`,
      primary_table: 'big',
      metadata: { n: i },
      vector: [1, i],
    }));
    assert.equal((await call('POST', '/api/v1/documents/batch', alice.token, batch)).status, 200);
    const seen: string[] = [];
    let cursor: string | undefined;
    let page = 0;
    do {
      const res = await call('POST', '/api/v1/documents/scroll', alice.token, {
        primary_table: 'big',
        limit: 40,
        with_vectors: page === 0,
        ...(cursor !== undefined && { cursor }),
      });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      const docs = res.body.documents as Doc[];
      if (page === 0) assert.deepEqual(docs[0]?.vectors, { v: [1, 0] });
      else assert.equal(docs[0]?.vectors, undefined);
      seen.push(...docs.map((d) => d.id));
      cursor = res.body.next_cursor as string | undefined;
      if (page === 1) {
        // Writes between pages: an update behind the cursor, one ahead, a delete ahead, a new document ahead.
        await call('PATCH', '/api/v1/documents/big-005', alice.token, { metadata: { n: 5, touched: true } });
        await call('PATCH', '/api/v1/documents/big-200', alice.token, { metadata: { n: 200, touched: true } });
        await call('DELETE', '/api/v1/documents/big-201', alice.token);
        await call('POST', '/api/v1/documents', alice.token, { id: 'big-999', primary_table: 'big', vector: [0, 1] });
      }
      page += 1;
    } while (cursor !== undefined);
    assert.equal(new Set(seen).size, seen.length, 'no document twice');
    const expected = [...batch.map((d) => d.id).filter((id) => id !== 'big-201'), 'big-999'];
    assert.deepEqual(seen, expected);

    const filtered = await call('POST', '/api/v1/documents/scroll', alice.token, {
      primary_table: 'big',
      filter: [{ field: 'metadata.touched', operator: 'eq', value: true }],
    });
    assert.deepEqual(
      (filtered.body.documents as Doc[]).map((d) => [d.id, d.version]),
      [
        ['big-005', 2],
        ['big-200', 2],
      ],
    );
    const forged = await call('POST', '/api/v1/documents/scroll', alice.token, { cursor: 'not a cursor!' });
    assert.equal(forged.status, 400);
    assert.equal(forged.body.error?.field, 'body.cursor');
  });
});

describe('delete by filter', () => {
  test('deletes only what the caller may delete, and says what it skipped', async () => {
    await call('POST', '/api/v1/collections', admin.token, { name: 'mixed' });
    await call('POST', '/api/v1/documents', alice.token, { id: 'm-a', primary_table: 'mixed', tags: ['old'] });
    await call('POST', '/api/v1/documents', bob.token, { id: 'm-b', primary_table: 'mixed', tags: ['old'] });
    await call('POST', '/api/v1/documents', bob.token, {
      id: 'm-c',
      primary_table: 'mixed',
      tags: ['old'],
      visibility: 'private',
    });
    await call('POST', '/api/v1/documents', alice.token, { id: 'm-d', primary_table: 'mixed', tags: ['new'] });
    const filter = [{ field: 'tags', operator: 'eq', value: 'old' }];
    const res = await call('POST', '/api/v1/documents/delete', alice.token, { primary_table: 'mixed', filter });
    assert.deepEqual(res.body, { success: true, deleted: 1, skipped: 1 });
    assert.equal((await call('GET', '/api/v1/documents/m-a', alice.token)).status, 404);
    assert.equal((await call('GET', '/api/v1/documents/m-b', bob.token)).status, 200);
    assert.equal((await call('GET', '/api/v1/documents/m-c', bob.token)).status, 200);
    assert.equal((await call('GET', '/api/v1/documents/m-d', alice.token)).status, 200);
    const empty = await call('POST', '/api/v1/documents/delete', alice.token, { primary_table: 'mixed', filter: [] });
    assert.equal(empty.status, 400);
    assert.equal(empty.body.error?.field, 'body.filter');
  });
});

describe('partial update', () => {
  test('changes the named fields in a new version and keeps the rest, chunks and vectors included', async () => {
    await call('POST', '/api/v1/collections', admin.token, {
      name: 'patched',
      vectors: { a: { dimensions: 2 }, b: { dimensions: 2 } },
    });
    await call('POST', '/api/v1/documents', alice.token, {
      id: 'doc-p',
      title: 'Boundary layers',
      content: 'laminar boundary layer flow over a flat plate',
      primary_table: 'patched',
      metadata: { year: 1958 },
      tags: ['aero'],
      vectors: { a: [1, 0], b: [0, 1] },
      acl: [{ user_id: bob.userId, role: 'edit' }],
      visibility: 'private',
    });
    const patched = await call('PATCH', '/api/v1/documents/doc-p', bob.token, {
      metadata: { year: 1959, reviewed: { by: 'bob' } },
      vectors: { b: [1, 1] },
    });
    assert.deepEqual(patched.body, { success: true, document_id: 'doc-p', version: 2 });
    const got = await call('GET', '/api/v1/documents/doc-p?include_embeddings=true&include_acl=true', alice.token);
    const doc = got.body.document as Doc & { title: string; tags: string[]; content: string; previous_doc_id: string };
    assert.equal(doc.title, 'Boundary layers');
    assert.deepEqual(doc.tags, ['aero']);
    assert.deepEqual(doc.metadata, { year: 1959, reviewed: { by: 'bob' } });
    assert.deepEqual(doc.vectors, { a: [1, 0], b: [1, 1] });
    assert.equal(doc.previous_doc_id, 'doc-p@v1');
    // Still private to alice and bob: the ACL stayed.
    const other = await server.addUser(admin);
    assert.equal((await call('GET', '/api/v1/documents/doc-p', other.token)).status, 404);
    // The text is still indexed, and the new vector found.
    const text = await call('POST', '/api/v1/search/text', alice.token, { query: 'laminar', primary_table: 'patched' });
    assert.deepEqual(
      (text.body.results as { document_id: string }[]).map((r) => r.document_id),
      ['doc-p'],
    );
    const byB = await call('POST', '/api/v1/search/vector', alice.token, {
      primary_table: 'patched',
      vector_name: 'b',
      vector: [1, 1],
      threshold: 0.99,
    });
    assert.deepEqual(
      (byB.body.results as { document_id: string }[]).map((r) => r.document_id),
      ['doc-p'],
    );

    assert.equal((await call('PATCH', '/api/v1/documents/doc-p', other.token, { title: 'x' })).status, 404);
    const viewer = await server.addUser(admin);
    await call('PUT', '/api/v1/documents/doc-p/acl', alice.token, {
      operation: 'add',
      acl: [{ user_id: viewer.userId, role: 'view' }],
    });
    assert.equal((await call('PATCH', '/api/v1/documents/doc-p', viewer.token, { title: 'x' })).status, 403);
    const empty = await call('PATCH', '/api/v1/documents/doc-p', alice.token, {});
    assert.equal(empty.status, 400);
    const badSize = await call('PATCH', '/api/v1/documents/doc-p', alice.token, { vectors: { a: [1, 2, 3] } });
    assert.equal(badSize.status, 400);
    assert.equal(badSize.body.error?.field, 'body.vectors.a');
  });
});
