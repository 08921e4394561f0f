import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { inputLimits } from '@godb/contract';
import { seededRandom } from '../../test-support/fuzz-inputs.js';
import { grpcCall, grpcClient, startGrpcTestServer, type GrpcClient } from '../../test-support/grpc.js';
import { readAcrossRestart, snapshotChangeRestore } from '../../test-support/durability.js';
import type { TestServer } from '../../test-support/server.js';

// Sparse vectors (issue #42, decision 0058) over HTTP on random data: a sparse stage's top-k against exhaustive dot
// products computed here from what the test wrote, with filters and the access rule; updates and deletes; bad
// input; RRF of text, dense and sparse stages; gRPC answering what REST answers; a restart and a snapshot restore.

type Hit = { document_id: string; score: number };
type Explained = { stage: string; kind: string; hits: Hit[] };
type Answer = { results: Hit[]; explain?: Explained[] };
interface Sparse {
  indices: number[];
  values: number[];
}
interface Doc {
  id: string;
  sparse: Sparse;
  dense: number[];
  bucket: number;
  private: boolean;
  title: string;
}

const table = 'sp';
const vocabulary = 300;
const total = 400;
const next = seededRandom(5858);
const words = ['shock', 'wave', 'boundary', 'layer', 'flow', 'heat', 'plate', 'jet', 'wing', 'vortex'];
const pick = <T>(xs: readonly T[]) => xs[Math.floor(next() * xs.length)]!;

/** A random sparse vector of `n` distinct indices, sorted, with values in (−0.5, 1). */
function sparseOf(n: number): Sparse {
  const indices = new Set<number>();
  while (indices.size < n) indices.add(Math.floor(next() * vocabulary));
  const sorted = [...indices].sort((a, b) => a - b);
  return { indices: sorted, values: sorted.map(() => Math.round((next() * 1.5 - 0.5) * 1e4) / 1e4) };
}

/** The exact dot product, term at a time in the query's order (the engine sums in that order too). */
function dot(q: Sparse, d: Sparse): number | undefined {
  let score: number | undefined;
  q.indices.forEach((index, i) => {
    const at = d.indices.indexOf(index);
    if (at >= 0) score = (score ?? 0) + q.values[i]! * d.values[at]!;
  });
  return score;
}

const docs = new Map<string, Doc>();

/** The exhaustive top `k`: every document the reader may see that the predicate allows and that shares a term. */
function exhaustive(q: Sparse, allow: (d: Doc) => boolean, reader: 'user' | 'admin', k: number) {
  return [...docs.values()]
    .filter((d) => (reader === 'admin' || !d.private) && allow(d))
    .flatMap((d) => {
      const score = dot(q, d.sparse);
      return score === undefined ? [] : [{ id: d.id, score }];
    })
    .sort((a, b) => b.score - a.score)
    .slice(0, k);
}

function assertRanked(hits: readonly Hit[], expected: readonly { id: string; score: number }[]) {
  assert.deepEqual(
    hits.map((h) => h.document_id),
    expected.map((e) => e.id),
  );
  hits.forEach((h, i) => assert.ok(Math.abs(h.score - expected[i]!.score) < 1e-6, `${h.document_id} score`));
}

let server: TestServer;
let admin: Awaited<ReturnType<TestServer['registerTenant']>>;
let user: Awaited<ReturnType<TestServer['addUser']>>;
let grpc: GrpcClient;

async function query(body: Record<string, unknown>, token = admin.token, on: TestServer = server) {
  const res = await on.call('POST', '/api/v1/search/query', token, { primary_table: table, ...body });
  return res;
}

async function sparseStage(q: Sparse, options: Record<string, unknown> = {}, token = admin.token, on = server) {
  const res = await query(
    { prefetch: [{ kind: 'sparse', vector_name: 'splade', sparse_vector: q, limit: 10, ...options }], limit: 100 },
    token,
    on,
  );
  assert.equal(res.status, 200, res.text.slice(0, 500));
  return (res.body as unknown as Answer).results;
}

const docBody = (d: Doc) => ({
  id: d.id,
  title: d.title,
  content: `${d.title} ${pick(words)}`,
  primary_table: table,
  vectors: { dense: d.dense },
  sparse_vectors: { splade: d.sparse },
  metadata: { bucket: d.bucket },
  visibility: d.private ? 'private' : 'public',
});

before(async () => {
  server = await startGrpcTestServer({ RATE_LIMIT_RPS: '100000', RATE_LIMIT_BURST: '100000' });
  admin = await server.registerTenant();
  user = await server.addUser(admin);
  grpc = grpcClient(server, 'SearchService');
  const created = await server.call('POST', '/api/v1/collections', admin.token, {
    name: table,
    vectors: { dense: { dimensions: 4, distance: 'cosine' } },
    sparse_vectors: { splade: {}, bm25: {} },
  });
  assert.equal(created.status, 201, created.text);
  assert.deepEqual((created.body as { sparse_vectors?: unknown }).sparse_vectors, { splade: {}, bm25: {} });
  const batch: Doc[] = Array.from({ length: total }, (_, i) => ({
    id: `s-${String(i).padStart(3, '0')}`,
    sparse: sparseOf(5 + Math.floor(next() * 40)),
    dense: Array.from({ length: 4 }, () => next() * 2 - 1),
    bucket: i % 10,
    private: i % 4 === 0,
    title: Array.from({ length: 3 }, () => pick(words)).join(' '),
  }));
  for (const d of batch) docs.set(d.id, d);
  for (let i = 0; i < batch.length; i += 200) {
    const res = await server.call('POST', '/api/v1/documents/batch', admin.token, batch.slice(i, i + 200).map(docBody));
    assert.equal(res.status, 200, res.text.slice(0, 300));
  }
});
after(async () => {
  grpc?.close();
  await server?.close();
});

describe('sparse stage against exhaustive scoring', () => {
  test('its top-k is the exact dot-product top-k of what the reader may see, with its filters', async () => {
    for (const reader of ['user', 'admin'] as const) {
      const token = reader === 'user' ? user.token : admin.token;
      for (let t = 0; t < 6; t += 1) {
        const q = sparseOf(3 + Math.floor(next() * 20));
        const limit = t % 2 === 0 ? 10 : 60;
        assertRanked(
          await sparseStage(q, { limit }, token),
          exhaustive(q, () => true, reader, limit),
        );
        const filtered = await sparseStage(
          q,
          { limit, filters: [{ field: 'metadata.bucket', operator: 'lt', value: 3 }] },
          token,
        );
        assertRanked(
          filtered,
          exhaustive(q, (d) => d.bucket < 3, reader, limit),
        );
      }
    }
  });

  test('an update replaces a document’s sparse vector and a delete removes it', async () => {
    const q = sparseOf(12);
    const [top] = exhaustive(q, () => true, 'admin', 1);
    assert.ok(top);
    const moved: Sparse = { indices: [q.indices[0]!], values: [1000] };
    const patched = await server.call('PATCH', `/api/v1/documents/${top.id}`, admin.token, {
      sparse_vectors: { splade: moved },
    });
    assert.equal(patched.status, 200, patched.text);
    docs.get(top.id)!.sparse = moved;
    const expected = exhaustive(q, () => true, 'admin', 20);
    assert.equal(expected[0]!.id, top.id);
    assertRanked(await sparseStage(q, { limit: 20 }), expected);
    const gone = await server.call('DELETE', `/api/v1/documents/${top.id}`, admin.token);
    assert.equal(gone.status, 200, gone.text);
    docs.delete(top.id);
    const after = await sparseStage(q, { limit: 20 });
    assert.ok(!after.some((h) => h.document_id === top.id));
    assertRanked(
      after,
      exhaustive(q, () => true, 'admin', 20),
    );
  });

  test('RRF of a text, a dense and a sparse stage is the formula over their explained lists', async () => {
    const q = sparseOf(15);
    const res = await query({
      prefetch: [
        { kind: 'text', query: 'shock wave', limit: 30 },
        { kind: 'dense', vector_name: 'dense', vector: [0.3, -0.2, 0.9, 0.1], limit: 30 },
        { kind: 'sparse', vector_name: 'splade', sparse_vector: q, limit: 30 },
      ],
      fusion: { method: 'rrf', k: 60 },
      limit: 20,
      explain: true,
    });
    assert.equal(res.status, 200, res.text.slice(0, 500));
    const answer = res.body as unknown as Answer;
    const sparse = answer.explain!.find((s) => s.stage === 'body.prefetch[2]')!;
    assert.equal(sparse.kind, 'sparse');
    assertRanked(
      sparse.hits,
      exhaustive(q, () => true, 'admin', 30),
    );
    const fused = new Map<string, number>();
    for (const stage of ['body.prefetch[0]', 'body.prefetch[1]', 'body.prefetch[2]']) {
      const list = answer.explain!.find((s) => s.stage === stage)!.hits;
      assert.ok(list.length > 0, `${stage} found documents`);
      list.forEach((h, rank) => fused.set(h.document_id, (fused.get(h.document_id) ?? 0) + 1 / (60 + rank + 1)));
    }
    const expected = [...fused].sort((a, b) => b[1] - a[1]).slice(0, 20);
    assert.equal(answer.results.length, expected.length);
    answer.results.forEach((h, i) =>
      assert.ok(
        Math.abs(h.score - expected[i]![1]) < 1e-5,
        `${h.document_id} ${h.score} ${JSON.stringify(expected[i])}`,
      ),
    );
  });

  test('an NDJSON import posts sparse vectors and refuses a bad line naming its field', async () => {
    const fresh: Doc[] = [0, 1].map((i) => ({
      id: `imp-${i}`,
      sparse: { indices: [vocabulary + 7 + i], values: [2 + i] },
      dense: [1, 0, 0, 0],
      bucket: 0,
      private: false,
      title: 'imported',
    }));
    const lines = [
      ...fresh.map(docBody),
      { ...docBody(fresh[0]!), id: 'imp-bad', sparse_vectors: { splade: { indices: [2, 1], values: [1, 1] } } },
    ];
    const res = await server.app.inject({
      method: 'POST',
      url: '/api/v1/documents/import',
      headers: { authorization: `Bearer ${admin.token}`, 'content-type': 'application/x-ndjson' },
      payload: lines.map((line) => JSON.stringify(line)).join('\n'),
    });
    assert.equal(res.statusCode, 200, res.body);
    const results = res.body
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { success: boolean; error?: { field?: string } });
    assert.deepEqual(
      results.map((r) => [r.success, r.error?.field]),
      [
        [true, undefined],
        [true, undefined],
        [false, 'line[3].sparse_vectors.splade.indices[1]'],
      ],
    );
    for (const d of fresh) docs.set(d.id, d);
    const q: Sparse = { indices: [vocabulary + 7, vocabulary + 8], values: [1, 1] };
    assertRanked(
      await sparseStage(q),
      exhaustive(q, () => true, 'admin', 10),
    );
    assert.deepEqual(
      (await sparseStage(q)).map((h) => h.document_id),
      ['imp-1', 'imp-0'],
    );
  });

  test('gRPC answers what REST answers', async () => {
    const q = sparseOf(10);
    const body = {
      primary_table: table,
      prefetch: [{ kind: 'sparse', vector_name: 'splade', sparse_vector: q, limit: 15 }],
      limit: 15,
    };
    const rest = await sparseStage(q, { limit: 15 });
    const viaGrpc = await grpcCall<Answer>(grpc, 'Query', body, { authorization: `Bearer ${admin.token}` });
    assert.deepEqual(
      viaGrpc.results.map((h) => [h.document_id, h.score]),
      rest.map((h) => [h.document_id, h.score]),
    );
  });
});

describe('sparse bad input answers 400 naming the field', () => {
  const add = (sparse: unknown, name = 'splade') =>
    server.call('POST', '/api/v1/documents', admin.token, {
      id: 'bad',
      title: 'bad',
      primary_table: table,
      sparse_vectors: { [name]: sparse },
    });
  const cases: [string, unknown, string, string?][] = [
    ['unsorted indices', { indices: [5, 2], values: [1, 1] }, 'body.sparse_vectors.splade.indices[1]'],
    ['duplicate indices', { indices: [2, 2], values: [1, 1] }, 'body.sparse_vectors.splade.indices[1]'],
    ['mismatched lengths', { indices: [1, 2, 3], values: [1, 1] }, 'body.sparse_vectors.splade.values'],
    ['a negative index', { indices: [-1], values: [1] }, 'body.sparse_vectors.splade.indices[0]'],
    ['a non-integer index', { indices: [1.5], values: [1] }, 'body.sparse_vectors.splade.indices[0]'],
    ['a value beyond float32', { indices: [1], values: [1e39] }, 'body.sparse_vectors.splade.values[0]'],
    [
      'too many non-zeros',
      {
        indices: Array.from({ length: inputLimits.sparseNonZeros + 1 }, (_, i) => i),
        values: Array.from({ length: inputLimits.sparseNonZeros + 1 }, () => 1),
      },
      'body.sparse_vectors.splade.indices',
    ],
    ['an undeclared name', { indices: [1], values: [1] }, 'body[0].sparse_vectors.colbert', 'colbert'],
  ];
  for (const [what, sparse, field, name] of cases) {
    test(`a document with ${what}`, async () => {
      const res = await add(sparse, name);
      assert.equal(res.status, 400, res.text);
      assert.ok(
        res.body.error?.field?.startsWith(field.replace('body[0]', 'body')),
        `${res.body.error?.field} ${field}`,
      );
      assert.ok(res.body.error?.message.length, res.text);
    });
  }

  test('a sparse stage with a bad query vector, an undeclared or missing name, or no vector', async () => {
    const stage = (extra: Record<string, unknown>) =>
      query({ prefetch: [{ kind: 'sparse', limit: 5, ...extra }], limit: 5 });
    const expect = async (extra: Record<string, unknown>, field: string, pattern: RegExp) => {
      const res = await stage(extra);
      assert.equal(res.status, 400, res.text);
      assert.equal(res.body.error?.field, field, res.text);
      assert.match(res.body.error!.message, pattern);
    };
    const ok = { indices: [1, 2], values: [1, 1] };
    await expect(
      { vector_name: 'splade', sparse_vector: { indices: [3, 1], values: [1, 1] } },
      'body.prefetch[0].sparse_vector.indices[1]',
      /strictly increasing/,
    );
    await expect({ vector_name: 'nope', sparse_vector: ok }, 'body.prefetch[0].vector_name', /splade, bm25/);
    await expect({ sparse_vector: ok }, 'body.prefetch[0].vector_name', /name one/);
    await expect({ vector_name: 'splade' }, 'body.prefetch[0].sparse_vector', /required/);
    await expect({ vector_name: 'splade', sparse_vector: ok, query: 'x' }, 'body.prefetch[0].query', /not read/);
  });

  test('a collection cannot change its sparse vectors by PATCH', async () => {
    const res = await server.call('PATCH', `/api/v1/collections/${table}`, admin.token, {
      sparse_vectors: { other: {} },
    });
    assert.equal(res.status, 400, res.text);
  });
});

describe('sparse postings last', () => {
  test('a restart keeps them', async () => {
    const q = sparseOf(20);
    const { before, after } = await readAcrossRestart(
      async (first, owner) => {
        await first.call('POST', '/api/v1/collections', owner.token, {
          name: table,
          vectors: { dense: { dimensions: 4, distance: 'cosine' } },
          sparse_vectors: { splade: {} },
        });
        const some = [...docs.values()].slice(0, 100);
        const res = await first.call('POST', '/api/v1/documents/batch', owner.token, some.map(docBody));
        assert.equal(res.status, 200, res.text.slice(0, 300));
      },
      (on, token) => sparseStage(q, { limit: 30 }, token, on),
    );
    assert.ok(before.length > 0);
    assert.deepEqual(after, before);
  });

  test('a snapshot and its restore keep them', async () => {
    const q = sparseOf(20);
    const before = await sparseStage(q, { limit: 40 });
    const [top] = before;
    assert.ok(top);
    // Changed after the snapshot: the restore brings back what it held.
    await snapshotChangeRestore(server, admin.token, async () => {
      assert.equal((await server.call('DELETE', `/api/v1/documents/${top.document_id}`, admin.token)).status, 200);
    });
    assert.deepEqual(await sparseStage(q, { limit: 40 }), before);
  });
});
