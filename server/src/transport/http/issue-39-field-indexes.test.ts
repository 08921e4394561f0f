import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { seededRandom } from '../../test-support/fuzz-inputs.js';
import { startTestServer, type TestServer } from '../../test-support/server.js';

// Issue #39: a collection declares field indexes; a filtered vector search on indexed fields learns its allowed
// documents from them the first time the filter is seen, and answers what the scan of every document answered:
// the same ids with the same scores, under each caller's access rule.

type Result = { document_id: string; score: number };

let server: TestServer;
let admin: Awaited<ReturnType<TestServer['registerTenant']>>;
let user: Awaited<ReturnType<TestServer['addUser']>>;

const dims = 8;
const total = 2600; // above exactBelow: the HNSW path, where the allowed set decides
const name = 'shop';
const call: TestServer['call'] = (...args) => server.call(...args);
const next = seededRandom(39);
const vectorOf = () => Array.from({ length: dims }, () => next() * 2 - 1);
const tags = ['red', 'green', 'blue', 'black'];

interface Plan {
  filter: string;
  allowed?: number;
  path: string;
  exact: boolean;
}

async function searchPlan(token: string, q: number[], filters: unknown): Promise<{ results: Result[]; plan: Plan }> {
  const res = await call('POST', '/api/v1/search/vector', token, {
    vector: q,
    primary_table: name,
    limit: 10,
    threshold: 0,
    filters,
    explain: true,
  });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const results = (res.body.results as Result[]).map((r) => ({ document_id: r.document_id, score: r.score }));
  return { results, plan: res.body.plan as Plan };
}

/** Filters selective enough that the allowed documents are scanned exactly (so answers can be compared exactly). */
const selective: unknown[] = [
  [{ field: 'metadata.sku', operator: 'eq', value: 7 }],
  // Two bounds of one single-valued field: read as one range.
  [
    { field: 'metadata.price', operator: 'gte', value: 40 },
    { field: 'metadata.price', operator: 'lt', value: 41 },
  ],
  { must: [{ field: 'metadata.price', operator: 'lt', value: 3 }] },
  {
    must: [
      { field: 'metadata.tag', operator: 'eq', value: 'red' },
      { field: 'metadata.price', operator: 'gte', value: 95 },
    ],
  },
  {
    should: [
      { field: 'metadata.sku', operator: 'in', value: [1, 2, 3] },
      { must: [{ field: 'metadata.price', operator: 'lte', value: 1 }] },
    ],
    must_not: [{ field: 'metadata.in_stock', operator: 'eq', value: false }],
  },
];

before(async () => {
  server = await startTestServer({ RATE_LIMIT_RPS: '100000', RATE_LIMIT_BURST: '100000' });
  admin = await server.registerTenant();
  user = await server.addUser(admin);
  const created = await call('POST', '/api/v1/collections', admin.token, {
    name,
    vectors: { v: { dimensions: dims, distance: 'cosine', storage: 'f16' } },
  });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  for (let i = 0; i < total; i += 500) {
    const res = await call(
      'POST',
      '/api/v1/documents/batch',
      admin.token,
      Array.from({ length: Math.min(500, total - i) }, (_v, j) => {
        const n = i + j;
        return {
          id: `p-${n}`,
          primary_table: name,
          vector: vectorOf(),
          visibility: n % 5 === 0 ? 'private' : 'public',
          metadata: {
            sku: n % 200,
            price: (n * 37) % 100,
            tag: n % 9 === 0 ? [tags[n % 4], tags[(n + 1) % 4]] : tags[n % 4],
            ...(n % 3 !== 0 && { in_stock: n % 2 === 0 }),
          },
        };
      }),
    );
    assert.equal(res.status, 200, JSON.stringify(res.body).slice(0, 300));
  }
});
after(async () => {
  await server.close();
});

describe('declared field indexes over HTTP', () => {
  test('an unknown kind or field is refused with 400 naming it', async () => {
    const kind = await call('PATCH', `/api/v1/collections/${name}`, admin.token, {
      indexes: { 'metadata.tag': 'geo' },
    });
    assert.equal(kind.status, 400, JSON.stringify(kind.body));
    assert.equal((kind.body.error as { code: string }).code, 'VALIDATION_FAILED');
    assert.match(JSON.stringify(kind.body), /indexes/);
    const field = await call('POST', '/api/v1/collections', admin.token, {
      name: 'x',
      indexes: { content: 'keyword' },
    });
    assert.equal(field.status, 400, JSON.stringify(field.body));
    assert.equal((field.body.error as { field?: string }).field, 'body.indexes.content');
  });

  test('filtered searches answer the same ids and scores from the indexes as from a scan of every document', async () => {
    const queries = selective.map(() => vectorOf());
    // Without indexes: the second time a filter is seen, its set comes from a scan of every document.
    const scanned: Result[][][] = [];
    for (const token of [user.token, admin.token]) {
      const answers: Result[][] = [];
      for (const [i, filters] of selective.entries()) {
        // The set ignores the caller: the user's first search is the filter's first sight, for both.
        const first = (await searchPlan(token, queries[i]!, filters)).plan.filter;
        assert.equal(first, token === user.token ? 'per-candidate' : 'scan');
        const second = await searchPlan(token, queries[i]!, filters);
        assert.equal(second.plan.filter, 'scan', 'seen again: every document was read');
        answers.push(second.results);
      }
      scanned.push(answers);
    }

    const declared = await call('PATCH', `/api/v1/collections/${name}`, admin.token, {
      indexes: {
        'metadata.sku': 'integer',
        'metadata.price': 'float',
        'metadata.tag': 'keyword',
        'metadata.in_stock': 'bool',
      },
    });
    assert.equal(declared.status, 200, JSON.stringify(declared.body));
    assert.equal((declared.body.indexes as Record<string, string>)['metadata.price'], 'float');
    let info: Record<string, { state: string; progress: number; documents: number; postings: number }> = {};
    for (let waited = 0; ; waited += 1) {
      const got = await call('GET', `/api/v1/collections/${name}`, admin.token);
      info = got.body.field_indexes as typeof info;
      if (Object.values(info).every((i) => i.state === 'ready')) break;
      assert.ok(waited < 500, 'the indexes are built');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.deepEqual(Object.keys(info).sort(), ['metadata.in_stock', 'metadata.price', 'metadata.sku', 'metadata.tag']);
    assert.equal(info['metadata.sku']!.documents, total);
    assert.equal(info['metadata.in_stock']!.documents, total - Math.ceil(total / 3));
    assert.ok(info['metadata.tag']!.postings > total, 'list elements are indexed each');
    assert.equal(info['metadata.sku']!.progress, 1);
    // A user sees the declaration, not the index sizes (they count documents the user may not read).
    const seen = await call('GET', `/api/v1/collections/${name}`, user.token);
    assert.equal(seen.body.field_indexes, undefined);
    assert.equal((seen.body.indexes as Record<string, string>)['metadata.tag'], 'keyword');

    // A write elsewhere moves the store's epoch on: every set is forgotten, and each filter is first seen again.
    await call('POST', '/api/v1/documents', admin.token, { id: 'elsewhere', primary_table: 'other', title: 'x' });
    await call('POST', '/api/v1/documents', admin.token, { id: 'elsewhere', primary_table: 'other', title: 'y' });
    for (const [t, token] of [user.token, admin.token].entries()) {
      for (const [i, filters] of selective.entries()) {
        const { results, plan } = await searchPlan(token, queries[i]!, filters);
        assert.deepEqual(results, scanned[t]![i], `filter ${JSON.stringify(filters)}`);
        assert.equal(plan.filter, 'index', 'first seen, answered from the indexes');
        assert.equal(plan.path, 'allowed-exact');
      }
    }
  });

  test('a value of another type than declared is refused at write time, naming the field and the type', async () => {
    const res = await call('POST', '/api/v1/documents', admin.token, {
      id: 'bad',
      primary_table: name,
      vector: vectorOf(),
      metadata: { sku: 1, price: 'cheap' },
    });
    assert.equal(res.status, 400, JSON.stringify(res.body));
    const error = res.body.error as { code: string; field?: string; message: string };
    assert.equal(error.code, 'VALIDATION_FAILED');
    assert.equal(error.field, 'body.metadata.price');
    assert.match(error.message, /float/);
    assert.equal((await call('GET', '/api/v1/documents/bad', admin.token)).status, 404);
  });

  test('explain answers how many documents the indexes allowed', async () => {
    const { plan } = await searchPlan(user.token, vectorOf(), [{ field: 'metadata.sku', operator: 'eq', value: 11 }]);
    assert.equal(plan.filter, 'index');
    assert.equal(
      plan.allowed,
      total / 200,
      'the allowed set ignores the caller: hits are checked with the access rule',
    );
    assert.equal(plan.exact, true);
    const without = await call('POST', '/api/v1/search/vector', user.token, {
      vector: vectorOf(),
      primary_table: name,
      threshold: 0,
      filters: [{ field: 'metadata.sku', operator: 'eq', value: 11 }],
    });
    assert.equal(without.body.plan, undefined, 'only when asked');
  });
});
