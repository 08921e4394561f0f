import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { seededRandom } from '../../test-support/fuzz-inputs.js';
import { startTestServer, type TestServer } from '../../test-support/server.js';

// Issue #39: text, hybrid and faceted searches whose filters are on a collection's field indexes rank BM25 with
// the allowed set as a membership predicate, and facets on indexed fields are counted from the postings. Every
// answer must be the one the unindexed path (each candidate's row checked) gives: same ids, order, scores, counts.

type Result = { document_id: string; score: number };
interface Plan {
  filter: string;
  allowed?: number;
  path: string;
  exact: boolean;
  vector_filter?: string;
  vector_path?: string;
  facets?: Record<string, string>;
}

let server: TestServer;
let admin: Awaited<ReturnType<TestServer['registerTenant']>>;
const call: TestServer['call'] = (...args) => server.call(...args);
const name = 'notes';
const total = 400;
const dims = 4;
const next = seededRandom(3965);
const pick = <T>(values: readonly T[]): T => values[Math.floor(next() * values.length)]!;
const words = ['shock', 'wave', 'boundary', 'layer', 'flow', 'drag', 'lift', 'vortex', 'jet', 'wake'];
const tags = ['red', 'green', 'blue', 'a b', ''];
/** Missing, null, a list (with nulls) or a value. */
const maybe = <T>(value: () => T): unknown => {
  const r = next();
  if (r < 0.15) return undefined;
  if (r < 0.22) return null;
  if (r < 0.4) return Array.from({ length: Math.floor(next() * 3) }, () => (next() < 0.1 ? null : value()));
  return value();
};

function metadata(): Record<string, unknown> {
  const m: Record<string, unknown> = {};
  const put = (key: string, value: unknown) => {
    if (value !== undefined) m[key] = value;
  };
  put(
    'tag',
    maybe(() => pick(tags)),
  );
  put(
    'price',
    maybe(() => Math.round(next() * 1000) / 10),
  );
  put(
    'n',
    maybe(() => Math.floor(next() * 20)),
  );
  put(
    'flag',
    maybe(() => next() < 0.5),
  );
  return m;
}

const filterSets: unknown[] = [
  [{ field: 'metadata.tag', operator: 'eq', value: 'red' }],
  [{ field: 'metadata.price', operator: 'lt', value: 10 }],
  [{ field: 'metadata.n', operator: 'in', value: [1, 2, 3] }],
  [{ field: 'metadata.flag', operator: 'eq', value: true }],
  [{ field: 'metadata.tag', operator: 'exists', value: false }],
  {
    must: [{ field: 'metadata.price', operator: 'gte', value: 20 }],
    should: [
      { field: 'metadata.tag', operator: 'in', value: ['green', 'a b'] },
      { must: [{ field: 'metadata.n', operator: 'lte', value: 4 }] },
    ],
    must_not: [{ field: 'metadata.flag', operator: 'eq', value: false }],
  },
  { must_not: [{ field: 'metadata.tag', operator: 'eq', value: 'blue' }] },
];
const queries: { path: string; body: Record<string, unknown> }[] = [];
for (const query of ['shock wave', 'boundary', 'vortex jet wake']) {
  queries.push({ path: '/api/v1/search/text', body: { query, query_type: 'match', limit: 20 } });
}
queries.push({ path: '/api/v1/search/text', body: { query: 'shock wave', query_type: 'phrase', limit: 20 } });
queries.push({ path: '/api/v1/search/text', body: { query: 'bou* l?ft', query_type: 'wildcard', limit: 20 } });
queries.push({
  path: '/api/v1/search/hybrid',
  body: { query: 'drag lift', vector: [0.5, -0.2, 0.1, 0.9], vector_name: 'v', alpha: 0.4, limit: 15 },
});
const facets = ['metadata.tag', 'metadata.price', 'metadata.n', 'metadata.flag', 'tags'];
queries.push({ path: '/api/v1/search/faceted', body: { query: 'flow drag', facets, limit: 20 } });
queries.push({ path: '/api/v1/search/faceted', body: { facets, limit: 20 } });

async function ask(
  path: string,
  body: Record<string, unknown>,
  filters: unknown,
): Promise<{ results: Result[]; total: number; facets?: unknown; plan: Plan }> {
  const res = await call('POST', path, admin.token, { ...body, primary_table: name, filters, explain: true });
  assert.equal(res.status, 200, `${path} ${JSON.stringify(res.body)}`);
  return {
    results: (res.body.results as Result[]).map((r) => ({ document_id: r.document_id, score: r.score })),
    total: res.body.total_hits as number,
    facets: res.body.facets,
    plan: res.body.plan as Plan,
  };
}

before(async () => {
  server = await startTestServer({ RATE_LIMIT_RPS: '100000', RATE_LIMIT_BURST: '100000' });
  admin = await server.registerTenant();
  const created = await call('POST', '/api/v1/collections', admin.token, {
    name,
    vectors: { v: { dimensions: dims, distance: 'cosine' } },
  });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const docs = Array.from({ length: total }, (_v, n) => ({
    id: `d-${n}`,
    primary_table: name,
    title: `${pick(words)} ${pick(words)}`,
    content: Array.from({ length: 3 + Math.floor(next() * 12) }, () => pick(words)).join(' '),
    vector: Array.from({ length: dims }, () => next() * 2 - 1),
    tags: next() < 0.5 ? [pick(['x', 'y', 'z'])] : [],
    metadata: metadata(),
  }));
  const res = await call('POST', '/api/v1/documents/batch', admin.token, docs);
  assert.equal(res.status, 200, JSON.stringify(res.body).slice(0, 300));
});
after(async () => {
  await server.close();
});

describe('text, hybrid and faceted searches filtered through field indexes', () => {
  test('answer what the unindexed path answers, and explain says which path was taken', async () => {
    const unindexed: Awaited<ReturnType<typeof ask>>[] = [];
    for (const q of queries) {
      for (const filters of filterSets) {
        const answer = await ask(q.path, q.body, filters);
        assert.notEqual(answer.plan.filter, 'index', JSON.stringify(answer.plan));
        if (q.path.endsWith('/faceted')) {
          for (const facet of facets) assert.equal(answer.plan.facets?.[facet], 'documents');
        }
        unindexed.push(answer);
      }
    }
    const declared = await call('PATCH', `/api/v1/collections/${name}`, admin.token, {
      indexes: {
        'metadata.tag': 'keyword',
        'metadata.price': 'float',
        'metadata.n': 'integer',
        'metadata.flag': 'bool',
        tags: 'keyword',
      },
    });
    assert.equal(declared.status, 200, JSON.stringify(declared.body));
    for (let waited = 0; ; waited += 1) {
      const got = await call('GET', `/api/v1/collections/${name}`, admin.token);
      const info = got.body.field_indexes as Record<string, { state: string }>;
      if (Object.values(info).every((i) => i.state === 'ready')) break;
      assert.ok(waited < 500, 'the indexes are built');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    let i = 0;
    for (const q of queries) {
      for (const filters of filterSets) {
        const earlier = unindexed[i++]!;
        const answer = await ask(q.path, q.body, filters);
        const what = `${q.path} ${JSON.stringify(q.body)} ${JSON.stringify(filters)}`;
        assert.equal(answer.plan.filter, 'index', `${what}: ${JSON.stringify(answer.plan)}`);
        assert.ok((answer.plan.allowed ?? -1) >= 0);
        const listing = q.path.endsWith('/faceted') && q.body.query === undefined;
        assert.equal(answer.plan.path, listing ? 'listed' : 'text-allowed', what);
        // The vector side's own plan (a small space is compared exactly, its candidates checked).
        if (q.path.endsWith('/hybrid')) assert.ok(answer.plan.vector_path !== undefined, what);
        if (q.path.endsWith('/faceted')) {
          for (const facet of facets) assert.equal(answer.plan.facets?.[facet], 'index', what);
          assert.deepEqual(answer.facets, earlier.facets, what);
        }
        assert.deepEqual(
          answer.results.map((r) => r.document_id),
          earlier.results.map((r) => r.document_id),
          what,
        );
        answer.results.forEach((r, k) => assert.ok(Math.abs(r.score - earlier.results[k]!.score) <= 1e-6, what));
        assert.equal(answer.total, earlier.total, what);
      }
    }
  });

  test('a text search without filters says so, and one on an unindexed field checks each candidate', async () => {
    const plain = await ask('/api/v1/search/text', { query: 'shock', query_type: 'match' }, undefined);
    assert.equal(plain.plan.filter, 'none');
    assert.equal(plain.plan.path, 'text');
    const other = await ask('/api/v1/search/text', { query: 'shock', query_type: 'match' }, [
      { field: 'metadata.other', operator: 'eq', value: 1 },
    ]);
    assert.equal(other.plan.filter, 'per-candidate');
    assert.equal(other.plan.path, 'text');
  });

  test('declaring an unknown kind or path answers 400 naming it; a value of another type, naming the declared one', async () => {
    const kind = await call('PATCH', `/api/v1/collections/${name}`, admin.token, {
      indexes: { 'metadata.tag': 'fulltext' },
    });
    assert.equal(kind.status, 400, JSON.stringify(kind.body));
    const kindError = kind.body.error as { code: string; field?: string; message: string };
    assert.equal(kindError.code, 'VALIDATION_FAILED');
    assert.equal(kindError.field, 'body.indexes.metadata.tag');
    // The schema refuses it first, naming the field and the kinds there are.
    assert.match(kindError.message, /body\.indexes\.metadata\.tag .*keyword, integer, float, bool, datetime, geo/);
    const path = await call('PATCH', `/api/v1/collections/${name}`, admin.token, {
      indexes: { 'nowhere.at.all': 'keyword' },
    });
    assert.equal(path.status, 400, JSON.stringify(path.body));
    assert.equal((path.body.error as { field?: string }).field, 'body.indexes.nowhere.at.all');
    assert.match((path.body.error as { message: string }).message, /nowhere\.at\.all/);
    const wrong = await call('POST', '/api/v1/documents', admin.token, {
      id: 'wrong',
      primary_table: name,
      vector: [1, 0, 0, 0],
      metadata: { n: 'many' },
    });
    assert.equal(wrong.status, 400, JSON.stringify(wrong.body));
    const wrongError = wrong.body.error as { field?: string; message: string };
    assert.equal(wrongError.field, 'body.metadata.n');
    assert.match(wrongError.message, /integer/);
  });
});
