import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { seededRandom } from '../../test-support/fuzz-inputs.js';
import { startTestServer, type TestServer } from '../../test-support/server.js';

// Filtered vector search over a collection large enough for the HNSW path (exact scans start below 2,000
// vectors): the documents a filter allows are found first, then scanned exactly (selective filters) or used to
// drop HNSW candidates (broad ones). Results must equal brute force over what the caller may read, and follow
// writes made after an earlier search remembered the filter's documents.

type Result = { document_id: string; score: number };

let server: TestServer;
let admin: Awaited<ReturnType<TestServer['registerTenant']>>;
let user: Awaited<ReturnType<TestServer['addUser']>>;

const dims = 16;
const total = 3000;
const name = 'filtered';

const call: TestServer['call'] = (...args) => server.call(...args);

const next = seededRandom(15);
const vectorOf = () => Array.from({ length: dims }, () => next() * 2 - 1);

interface Doc {
  id: string;
  vector: number[];
  bucket: number;
  private: boolean;
}
const docs = new Map<string, Doc>();

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

/** The exact top ten of the documents a reader may see that a predicate allows. */
function truth(q: number[], allow: (d: Doc) => boolean, reader: 'user' | 'admin'): string[] {
  return [...docs.values()]
    .filter((d) => allow(d) && (reader === 'admin' || !d.private))
    .map((d) => ({ id: d.id, score: cosine(q, d.vector) }))
    .sort((a, b) => b.score - a.score)
    .slice(0, 10)
    .map((d) => d.id);
}

async function search(token: string, q: number[], filters: unknown): Promise<string[]> {
  const res = await call('POST', '/api/v1/search/vector', token, {
    vector: q,
    primary_table: name,
    limit: 10,
    threshold: 0,
    filters,
  });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const results = res.body.results as Result[];
  for (let i = 1; i < results.length; i += 1) assert.ok(results[i - 1]!.score >= results[i]!.score);
  return results.map((r) => r.document_id);
}

/** Writes `rows` into collection `table` as the admin, `size` a batch, each with its bucket (and visibility). */
async function addRows(table: string, rows: readonly (Omit<Doc, 'private'> & { private?: boolean })[], size: number) {
  for (let i = 0; i < rows.length; i += size) {
    const res = await call(
      'POST',
      '/api/v1/documents/batch',
      admin.token,
      rows.slice(i, i + size).map((d) => ({
        id: d.id,
        primary_table: table,
        vector: d.vector,
        metadata: { bucket: d.bucket },
        ...(d.private !== undefined && { visibility: d.private ? 'private' : 'public' }),
      })),
    );
    assert.equal(res.status, 200, JSON.stringify(res.body).slice(0, 300));
  }
}

const below = (n: number) => ({ must: [{ field: 'metadata.bucket', operator: 'lt', value: n }] });

before(async () => {
  server = await startTestServer({ RATE_LIMIT_RPS: '100000', RATE_LIMIT_BURST: '100000' });
  admin = await server.registerTenant();
  user = await server.addUser(admin);
  const created = await call('POST', '/api/v1/collections', admin.token, {
    name,
    vectors: { v: { dimensions: dims, distance: 'cosine', storage: 'f16' } },
  });
  assert.equal(created.status, 201);
  const batch: Doc[] = Array.from({ length: total }, (_, i) => ({
    id: `f-${i}`,
    vector: vectorOf(),
    bucket: i % 100,
    private: i % 7 === 0,
  }));
  for (const d of batch) docs.set(d.id, d);
  await addRows(name, batch, 500);
});
after(async () => {
  await server.close();
});

describe('filtered vector search on the HNSW path', () => {
  test('a selective filter (1 %) equals brute force over what each caller may read', async () => {
    for (let t = 0; t < 5; t += 1) {
      const q = vectorOf();
      assert.deepEqual(
        await search(user.token, q, below(1)),
        truth(q, (d) => d.bucket < 1, 'user'),
      );
      assert.deepEqual(
        await search(admin.token, q, below(1)),
        truth(q, (d) => d.bucket < 1, 'admin'),
      );
    }
  });

  test('broad filters (10 %, 60 %) and nested groups keep recall against brute force', async () => {
    let agree = 0;
    let asked = 0;
    const cases: [unknown, (d: Doc) => boolean][] = [
      [below(10), (d) => d.bucket < 10],
      [below(60), (d) => d.bucket < 60],
      [
        {
          should: [below(20), { must: [{ field: 'metadata.bucket', operator: 'gte', value: 90 }] }],
          must_not: [{ field: 'metadata.bucket', operator: 'eq', value: 5 }],
        },
        (d) => (d.bucket < 20 || d.bucket >= 90) && d.bucket !== 5,
      ],
    ];
    for (const [filters, allow] of cases) {
      for (let t = 0; t < 4; t += 1) {
        const q = vectorOf();
        const found = await search(user.token, q, filters);
        const expected = truth(q, allow, 'user');
        assert.equal(found.length, 10);
        for (const id of found) assert.ok(allow(docs.get(id)!) && !docs.get(id)!.private, `${id} passes the filter`);
        agree += expected.filter((id) => found.includes(id)).length;
        asked += expected.length;
      }
    }
    assert.ok(agree / asked >= 0.9, `recall ${agree / asked}`);
  });

  test('writes after a search are followed: new, changed, deleted and private documents', async () => {
    const q = vectorOf();
    // The filter's documents are remembered by this search.
    assert.deepEqual(
      await search(user.token, q, below(1)),
      truth(q, (d) => d.bucket < 1, 'user'),
    );

    // A new document that matches, close to the query: found at once.
    const near = { id: 'f-new', vector: q.map((x) => x + 0.001), bucket: 0, private: false };
    docs.set(near.id, near);
    await call('POST', '/api/v1/documents', admin.token, {
      id: near.id,
      primary_table: name,
      vector: near.vector,
      metadata: { bucket: 0 },
    });
    let found = await search(user.token, q, below(1));
    assert.equal(found[0], 'f-new');
    assert.deepEqual(
      found,
      truth(q, (d) => d.bucket < 1, 'user'),
    );

    // Its metadata changes so the filter no longer allows it; another document starts to match.
    await call('PATCH', `/api/v1/documents/${near.id}`, admin.token, { metadata: { bucket: 50 } });
    near.bucket = 50;
    const moved = docs.get('f-1')!; // bucket 1, public
    await call('PATCH', `/api/v1/documents/${moved.id}`, admin.token, { metadata: { bucket: 0 } });
    moved.bucket = 0;
    found = await search(user.token, q, below(1));
    assert.ok(!found.includes('f-new'));
    assert.deepEqual(
      found,
      truth(q, (d) => d.bucket < 1, 'user'),
    );

    // A matching document turns private: the user no longer sees it, its owner does.
    const first = found[0]!;
    await call('PUT', `/api/v1/documents/${first}/visibility`, admin.token, { visibility: 'private' });
    docs.get(first)!.private = true;
    assert.ok(!(await search(user.token, q, below(1))).includes(first));
    assert.ok((await search(admin.token, q, below(1))).includes(first));

    // A deleted one is gone.
    const second = (await search(user.token, q, below(1)))[0]!;
    assert.equal((await call('DELETE', `/api/v1/documents/${second}`, admin.token)).status, 200);
    docs.delete(second);
    found = await search(user.token, q, below(1));
    assert.ok(!found.includes(second));
    assert.deepEqual(
      found,
      truth(q, (d) => d.bucket < 1, 'user'),
    );
  });

  for (const distance of ['euclidean', 'dot'] as const) {
    test(`${distance}: filtered results equal brute force (exact scan) and keep recall (index)`, async () => {
      const table = `filtered-${distance}`;
      await call('POST', '/api/v1/collections', admin.token, {
        name: table,
        vectors: { v: { dimensions: dims, distance, storage: 'i8' } },
      });
      const rows = Array.from({ length: 2100 }, (_, i) => ({
        id: `${table}-${i}`,
        vector: vectorOf(),
        bucket: i % 100,
      }));
      await addRows(table, rows, 700);
      const score = (a: number[], b: number[]) =>
        distance === 'dot'
          ? a.reduce((sum, x, i) => sum + x * b[i]!, 0)
          : 1 / (1 + Math.sqrt(a.reduce((sum, x, i) => sum + (x - b[i]!) ** 2, 0)));
      let agree = 0;
      for (let t = 0; t < 4; t += 1) {
        const q = vectorOf();
        for (const [cut, exact] of [
          [2, true],
          [70, false],
        ] as const) {
          const res = await call('POST', '/api/v1/search/vector', user.token, {
            vector: q,
            primary_table: table,
            limit: 10,
            threshold: 0,
            filters: below(cut),
          });
          const results = res.body.results as Result[];
          const expected = rows
            .filter((r) => r.bucket < cut)
            .map((r) => ({ id: r.id, score: score(q, r.vector) }))
            .sort((a, b) => b.score - a.score)
            .slice(0, 10);
          for (const r of results) {
            const row = rows.find((x) => x.id === r.document_id)!;
            assert.ok(row.bucket < cut);
            assert.ok(Math.abs(r.score - score(q, row.vector)) < 1e-4, `${r.score} for ${r.document_id}`);
          }
          if (exact)
            assert.deepEqual(
              results.map((r) => r.document_id),
              expected.map((e) => e.id),
            );
          else agree += expected.filter((e) => results.some((r) => r.document_id === e.id)).length;
        }
      }
      assert.ok(agree / 40 >= 0.9, `recall ${agree / 40}`);
    });
  }

  test('a filter that allows nothing answers no results', async () => {
    assert.deepEqual(await search(user.token, vectorOf(), below(-1)), []);
  });
});
