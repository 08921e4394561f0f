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
/** Every document's vector and price, for brute force. */
const stored: { vector: number[]; price: number; sku: number; visibility: string }[] = [];
const tags = ['red', 'green', 'blue', 'black'];

interface Plan {
  filter: string;
  allowed?: number;
  estimated_at_least?: number;
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
        const vector = vectorOf();
        stored[n] = { vector, price: (n * 37) % 100, sku: n % 200, visibility: n % 5 === 0 ? 'private' : 'public' };
        return {
          id: `p-${n}`,
          primary_table: name,
          vector,
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

  test('a broad filter on indexed fields is checked per candidate, never made into a set or a scan', async () => {
    // price >= 50 allows half the documents: counting its postings stops at the broad threshold, the set is not made
    // (it would cost more than the search) and the HNSW candidates are checked one by one, the second time too.
    const filters = [{ field: 'metadata.price', operator: 'gte', value: 50 }];
    const cosine = (a: number[], b: number[]) => {
      let dot = 0;
      let na = 0;
      let nb = 0;
      for (let i = 0; i < a.length; i += 1) {
        dot += a[i]! * b[i]!;
        na += a[i]! ** 2;
        nb += b[i]! ** 2;
      }
      return dot / Math.sqrt(na * nb);
    };
    let found = 0;
    const queries = 20;
    for (let i = 0; i < queries; i += 1) {
      const q = vectorOf();
      for (const time of ['first', 'again']) {
        const { results, plan } = await searchPlan(user.token, q, filters);
        assert.equal(plan.filter, 'per-candidate', `${time}: ${JSON.stringify(plan)}`);
        assert.equal(plan.path, 'hnsw');
        assert.ok((plan.estimated_at_least ?? 0) >= 160, JSON.stringify(plan));
        assert.equal(plan.allowed, undefined);
        assert.equal(results.length, 10);
        if (time === 'again') continue;
        const truth = stored
          .map((d, n) => ({ id: `p-${n}`, d, s: cosine(q, d.vector) }))
          .filter(({ d }) => d.price >= 50 && d.visibility === 'public')
          .sort((a, b) => b.s - a.s)
          .slice(0, 10)
          .map(({ id }) => id);
        found += results.filter((r) => truth.includes(r.document_id)).length;
      }
    }
    const recall = found / (queries * 10);
    assert.ok(recall >= 0.95, `recall@10 against brute force: ${recall}`);
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
  test('count, scroll and delete by filter are answered from the indexes, under the access rule', async () => {
    const readable = (token: string, n: number) => token === admin.token || stored[n]!.visibility === 'public';
    const cases: { filter: unknown; allow: (n: number) => boolean }[] = [
      { filter: [{ field: 'metadata.sku', operator: 'in', value: [3, 4] }], allow: (n) => [3, 4].includes(n % 200) },
      { filter: [{ field: 'metadata.price', operator: 'gte', value: 50 }], allow: (n) => stored[n]!.price >= 50 },
      {
        filter: {
          must: [{ field: 'metadata.price', operator: 'lt', value: 10 }],
          must_not: [{ field: 'metadata.sku', operator: 'lt', value: 100 }],
        },
        allow: (n) => stored[n]!.price < 10 && n % 200 >= 100,
      },
    ];
    for (const token of [user.token, admin.token]) {
      for (const { filter, allow } of cases) {
        const expected = stored
          .map((_d, n) => n)
          .filter((n) => allow(n) && readable(token, n))
          .map((n) => `p-${n}`)
          .sort();
        const counted = await call('POST', '/api/v1/documents/count', token, { primary_table: name, filter });
        assert.equal(counted.status, 200, JSON.stringify(counted.body));
        assert.equal(counted.body.count, expected.length, `count ${JSON.stringify(filter)}`);
        const seen: string[] = [];
        let cursor: string | undefined;
        do {
          const page = await call('POST', '/api/v1/documents/scroll', token, {
            primary_table: name,
            filter,
            limit: 100,
            ...(cursor !== undefined && { cursor }),
          });
          assert.equal(page.status, 200, JSON.stringify(page.body));
          seen.push(...(page.body.documents as { id: string }[]).map((d) => d.id));
          cursor = page.body.next_cursor as string | undefined;
        } while (cursor !== undefined);
        assert.deepEqual(seen, expected, `scroll ${JSON.stringify(filter)}`);
      }
    }
    // price in [40, 41): the user owns none (skipped as readable but not theirs); the admin deletes them all.
    const filter = [
      { field: 'metadata.price', operator: 'gte', value: 40 },
      { field: 'metadata.price', operator: 'lt', value: 41 },
    ];
    const matching = stored.map((_d, n) => n).filter((n) => stored[n]!.price === 40);
    const byUser = await call('POST', '/api/v1/documents/delete', user.token, { primary_table: name, filter });
    assert.deepEqual(byUser.body, {
      success: true,
      deleted: 0,
      skipped: matching.filter((n) => readable(user.token, n)).length,
    });
    const byAdmin = await call('POST', '/api/v1/documents/delete', admin.token, { primary_table: name, filter });
    assert.deepEqual(byAdmin.body, { success: true, deleted: matching.length, skipped: 0 });
    const left = await call('POST', '/api/v1/documents/count', admin.token, { primary_table: name, filter });
    assert.equal(left.body.count, 0);
  });
  test('a tenant restore builds the declared indexes again at once, and filters answer from them', async () => {
    const filter = [{ field: 'metadata.sku', operator: 'in', value: [5, 6, 7] }];
    const countOf = async () =>
      (await call('POST', '/api/v1/documents/count', admin.token, { primary_table: name, filter })).body.count;
    const before = await countOf();
    const accepted = await call('POST', '/api/v1/snapshots', admin.token);
    assert.equal(accepted.status, 202, JSON.stringify(accepted.body));
    const { snapshot_id: id, job_id: jobId } = accepted.body as { snapshot_id: string; job_id: string };
    assert.equal((await server.finishedJob(admin.token, jobId)).status, 'done');
    // After the snapshot, documents of the filter go; the restore brings them back.
    const gone = await call('POST', '/api/v1/documents/delete', admin.token, { primary_table: name, filter });
    assert.ok((gone.body.deleted as number) > 0, JSON.stringify(gone.body));
    assert.equal(await countOf(), 0);
    const restored = await call('POST', '/api/v1/snapshots/restore', admin.token, { snapshot_id: id });
    assert.equal(restored.status, 202, JSON.stringify(restored.body));
    const job = await server.finishedJob(admin.token, (restored.body as { job_id: string }).job_id);
    assert.equal(job.status, 'done', job.error);
    for (let waited = 0; ; waited += 1) {
      const info = (await call('GET', `/api/v1/collections/${name}`, admin.token)).body.field_indexes as Record<
        string,
        { state: string; documents: number }
      >;
      if (info && Object.values(info).every((i) => i.state === 'ready')) {
        assert.equal(info['metadata.sku']!.documents, total - stored.filter((d) => d.price === 40).length);
        break;
      }
      assert.ok(waited < 500, `the indexes are built again without a restart: ${JSON.stringify(info)}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.equal(await countOf(), before);
    // The restored vector index loads its float32 copies in the background; from then on the set is the indexes'.
    for (let waited = 0; ; waited += 1) {
      const { plan } = await searchPlan(admin.token, vectorOf(), filter);
      if (plan.filter === 'index') {
        assert.equal(plan.allowed, before);
        break;
      }
      assert.ok(waited < 500, JSON.stringify(plan));
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  });
  test('a viewer who may read few documents of a large collection searches those, from the access indexes', async () => {
    // 2,600 private notes of the admin; the user may read 30 shared with them and 10 public ones.
    const notes: { id: string; vector: number[]; readable: boolean; kind: string }[] = [];
    await call('POST', '/api/v1/collections', admin.token, {
      name: 'notes',
      vectors: { v: { dimensions: dims, distance: 'cosine', storage: 'f16' } },
    });
    for (let i = 0; i < total; i += 500) {
      const docs = Array.from({ length: Math.min(500, total - i) }, (_v, j) => {
        const n = i + j;
        const kind = n % 65 === 0 ? 'public' : n % 86 === 1 ? 'shared' : 'private';
        const vector = vectorOf();
        notes.push({ id: `n-${n}`, vector, readable: kind !== 'private', kind });
        return {
          id: `n-${n}`,
          primary_table: 'notes',
          vector,
          visibility: kind === 'public' ? 'public' : 'private',
          metadata: { kind },
          ...(kind === 'shared' && { acl: [{ user_id: user.userId, role: 'view' }] }),
        };
      });
      const res = await call('POST', '/api/v1/documents/batch', admin.token, docs);
      assert.equal(res.status, 200, JSON.stringify(res.body).slice(0, 300));
    }
    const readable = notes.filter((d) => d.readable);
    assert.ok(readable.length > 50 && readable.length < 100, `${readable.length} readable`);
    const dot = (a: number[], b: number[]) => a.reduce((sum, x, i) => sum + x * b[i]!, 0);
    const norm = (a: number[]) => Math.sqrt(dot(a, a));
    const search = async (token: string, q: number[], filters?: unknown) => {
      const res = await call('POST', '/api/v1/search/vector', token, {
        vector: q,
        primary_table: 'notes',
        limit: 10,
        threshold: 0,
        explain: true,
        ...(filters !== undefined && { filters }),
      });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      return { ids: (res.body.results as Result[]).map((r) => r.document_id), plan: res.body.plan as Plan };
    };
    for (let i = 0; i < 10; i += 1) {
      const q = vectorOf();
      const best = (docs: typeof notes) =>
        docs
          .map((d) => ({ id: d.id, s: dot(q, d.vector) / (norm(q) * norm(d.vector)) }))
          .sort((a, b) => b.s - a.s)
          .slice(0, 10)
          .map((d) => d.id);
      const mine = await search(user.token, q);
      assert.equal(mine.plan.filter, 'access', JSON.stringify(mine.plan));
      assert.equal(mine.plan.allowed, readable.length);
      assert.equal(mine.plan.exact, true);
      assert.deepEqual(mine.ids, best(readable), 'exactly the nearest of the documents the user may read');
      // A filter on an unindexed field: the access set (or, seen again, the filter's own), checked on its hits.
      const shared = await search(user.token, q, [{ field: 'metadata.kind', operator: 'eq', value: 'shared' }]);
      assert.equal(shared.plan.filter, i === 0 ? 'access' : 'scan', JSON.stringify(shared.plan));
      assert.deepEqual(shared.ids, best(readable.filter((d) => d.kind === 'shared')));
      // The admin may read them all: the HNSW index, as before.
      const all = await search(admin.token, q);
      assert.equal(all.plan.filter, 'none', JSON.stringify(all.plan));
    }
  });
});
