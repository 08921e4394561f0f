import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { facetedSearch } from '../../engine/search/faceted-search.js';
import { multiTableSearch } from '../../engine/search/multi-table-search.js';
import type { Scope } from '../../engine/search/scope.js';
import { bearer, startTestServer, type TestServer } from '../../test-support/server.js';

/**
 * Issue 22: list inputs whose size once set the cost of a search. 20,000 table names ran one query per name and
 * repeated every table's documents per repetition (97 s, then out of memory); 100,000 facets took ≥ 20 s. The
 * answers stay those of the same request with each name once; a generous deadline only detects a hang.
 */
type Result = { document_id: string; table?: string; joined?: { table: string; document_id: string }[] };
type Body = {
  results?: Result[];
  total_hits?: number;
  facets?: Record<string, { value: string; count: number }[]>;
  error?: { code: string; field?: string };
};

const hangDetector = { timeout: 60_000 };
const documentCount = 2400;
let server: TestServer;
let admin: Awaited<ReturnType<TestServer['registerTenant']>>;

async function post(url: string, payload: unknown): Promise<{ status: number; body: Body }> {
  const res = await server.app.inject({
    method: 'POST',
    url,
    headers: bearer(admin.token),
    payload: payload as object,
  });
  return { status: res.statusCode, body: res.json() as Body };
}

before(async () => {
  server = await startTestServer();
  admin = await server.registerTenant();
  const docs = Array.from({ length: documentCount }, (_, i) => ({
    id: `doc-${i}`,
    title: `record ${i}`,
    content: i % 2 === 0 ? 'turbine blade cooling' : 'compressor stall margin',
    primary_table: ['papers', 'authors', 'labs'][i % 3],
    tags: [`tag-${i % 4}`, 'common'],
    metadata: { author_id: `doc-${(i + 1) % documentCount}`, group: i % 5, rank: i },
    embedding_options: { enabled: false },
  }));
  for (let i = 0; i < docs.length; i += 400) {
    const res = await server.app.inject({
      method: 'POST',
      url: '/api/v1/documents/batch',
      headers: bearer(admin.token),
      payload: docs.slice(i, i + 400),
    });
    assert.equal(res.statusCode, 200, res.body);
  }
});

after(() => server.close());

describe('multi-table search: cost bounded by the distinct tables, not the list', () => {
  test('20,000 table names are a 400 at once; repeated names answer as the names once', hangDetector, async () => {
    const names = ['papers', 'authors', 'labs'];
    const huge = await post('/api/v1/search/multi-table', {
      table_names: Array.from({ length: 20_000 }, (_, i) => names[i % 3]!),
    });
    assert.equal(huge.status, 400, 'the contract bounds the list (32 names)');
    assert.equal(huge.body.error?.field, 'body.table_names');
    const repeated = Array.from({ length: 30 }, (_, i) => names[i % 3]!);
    for (const query of [undefined, 'turbine']) {
      const once = await post('/api/v1/search/multi-table', { table_names: names, query, limit: 100 });
      const many = await post('/api/v1/search/multi-table', { table_names: repeated, query, limit: 100 });
      assert.equal(many.status, 200);
      assert.deepEqual(many.body.results, once.body.results);
      assert.equal(many.body.total_hits, query ? documentCount / 2 : documentCount);
      const ids = (many.body.results ?? []).map((r) => r.document_id);
      assert.equal(new Set(ids).size, ids.length, 'no document twice');
    }
  });

  test('results keep table_names order among equal scores, and only listed tables answer', async () => {
    const res = await post('/api/v1/search/multi-table', { table_names: ['labs', 'papers'], limit: 100 });
    const tables = (res.body.results ?? []).map((r) => r.table);
    assert.equal(tables.length, 100);
    assert.deepEqual(
      tables,
      Array.from({ length: 100 }, () => 'labs'),
    );
    assert.equal(res.body.total_hits, (documentCount / 3) * 2);
  });

  test('more than 64 different tables, or a join that is not an object, is a 400 naming the field', async () => {
    const many = await post('/api/v1/search/multi-table', {
      table_names: Array.from({ length: 65 }, (_, i) => `t${i}`),
    });
    assert.equal(many.status, 400);
    assert.equal(many.body.error?.field, 'body.table_names');
    const nullJoin = await post('/api/v1/search/multi-table', { table_names: ['papers'], join_conditions: [null] });
    assert.equal(nullJoin.status, 400);
    assert.equal(nullJoin.body.error?.field, 'body.join_conditions[0]');
  });

  test('an eq join over thousands of documents finds each partner by value', hangDetector, async () => {
    const res = await post('/api/v1/search/multi-table', {
      table_names: ['papers', 'authors', 'labs'],
      join_conditions: [
        { left_table: 'papers', left_field: 'metadata.author_id', right_table: 'authors', right_field: 'id' },
      ],
      limit: 1000,
    });
    assert.equal(res.status, 200);
    // papers are doc-0, doc-3, …; their author doc-(i+1) is in authors (i+1 ≡ 1 mod 3) for every paper.
    assert.equal(res.body.total_hits, documentCount / 3);
    for (const r of res.body.results ?? []) {
      const i = Number(r.document_id.slice(4));
      assert.deepEqual(
        r.joined,
        [{ table: 'authors', document_id: `doc-${(i + 1) % documentCount}` }].map((j) => ({
          ...j,
          title: `record ${(i + 1) % documentCount}`,
        })),
      );
    }
  });

  test('other join operators still compare every pair they need, up to ten partners listed', async () => {
    const res = await post('/api/v1/search/multi-table', {
      table_names: ['papers', 'labs'],
      query: 'turbine',
      join_conditions: [
        {
          left_table: 'papers',
          left_field: 'metadata.rank',
          operator: 'gt',
          right_table: 'labs',
          right_field: 'metadata.rank',
        },
      ],
      limit: 1000,
    });
    assert.equal(res.status, 200);
    // labs hold ranks 2, 5, 8, …: every turbine paper (even rank) above 2 has a lab below it.
    const papers = (res.body.results ?? []).map((r) => Number(r.document_id.slice(4)));
    assert.ok(papers.length > 0);
    for (const r of res.body.results ?? []) {
      const rank = Number(r.document_id.slice(4));
      assert.ok(rank > 2);
      assert.equal(r.joined?.length, Math.min(10, Math.ceil((rank - 2) / 3)));
    }
  });
});

describe('faceted search: cost bounded by the distinct facets', () => {
  test('100,000 facet names are a 400 at once; repeated names count as the names once', hangDetector, async () => {
    const facets = ['tags', 'metadata.group', 'primary_table'];
    const huge = await post('/api/v1/search/faceted', {
      facets: Array.from({ length: 100_000 }, (_, i) => facets[i % 3]!),
    });
    assert.equal(huge.status, 400, 'the contract bounds the list (32 facets)');
    assert.equal(huge.body.error?.field, 'body.facets');
    const once = await post('/api/v1/search/faceted', { facets, limit: 5 });
    const many = await post('/api/v1/search/faceted', {
      facets: Array.from({ length: 30 }, (_, i) => facets[i % 3]!),
      limit: 5,
    });
    assert.equal(many.status, 200);
    assert.deepEqual(many.body.facets, once.body.facets);
    assert.deepEqual(many.body.facets?.tags?.[0], { value: 'common', count: documentCount });
    assert.equal(many.body.facets?.['metadata.group']?.length, 5);
  });

  test('more than 64 different facets is a 400 naming body.facets', async () => {
    const res = await post('/api/v1/search/faceted', {
      facets: Array.from({ length: 65 }, (_, i) => `metadata.k${i}`),
    });
    assert.equal(res.status, 400);
    assert.equal(res.body.error?.field, 'body.facets');
  });
});

describe('abandoned searches stop between slices', () => {
  test('faceted counting and multi-table joins stop when the request is aborted', async () => {
    const scope: Scope = {
      viewer: { tenantId: admin.tenantId, userId: admin.userId, groups: [] },
      now: Math.floor(Date.now() / 1000),
      table: undefined,
      filters: undefined,
      geo: undefined,
      requireGeo: false,
    };
    const reason = new Error('the client went away');
    const aborted = AbortSignal.abort(reason);
    // Over 2,000 documents: the counting yields at least once, and sees the abort there.
    await assert.rejects(facetedSearch(server.engine.search, scope, undefined, ['tags'], aborted), reason);
    const complete = await facetedSearch(
      server.engine.search,
      scope,
      undefined,
      ['tags'],
      new AbortController().signal,
    );
    assert.equal(complete.hits.length, documentCount);
    // A join that never matches compares every pair (800 × 800): it yields between slices and sees the abort.
    const never = [
      {
        left_table: 'papers',
        left_field: 'metadata.missing',
        operator: 'gt' as const,
        right_table: 'labs',
        right_field: 'metadata.rank',
      },
    ];
    const tables = ['papers', 'labs'];
    await assert.rejects(multiTableSearch(server.engine.search, scope, tables, undefined, never, aborted), reason);
    assert.deepEqual(await multiTableSearch(server.engine.search, scope, tables, undefined, never), []);
  });
});
