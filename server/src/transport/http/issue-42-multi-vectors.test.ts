import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { seededRandom } from '../../test-support/fuzz-inputs.js';
import { grpcCall, grpcClient, startGrpcTestServer, type GrpcClient } from '../../test-support/grpc.js';
import { readAcrossRestart, snapshotChangeRestore } from '../../test-support/durability.js';
import type { TestServer } from '../../test-support/server.js';

// Multi-vectors (issue #42, decision 0059) over HTTP on random data: a multi_vector stage's top-k and a MaxSim
// rescore against MaxSim computed here from what the test wrote, with filters and the access rule; the recall of
// the token index when candidates do not cover the collection; gRPC answering what REST answers; bad input; a
// restart and a snapshot restore.

type Hit = { document_id: string; score: number };
type Answer = { results: Hit[] };
interface Doc {
  id: string;
  tokens: number[][];
  dense: number[];
  bucket: number;
  private: boolean;
}

const table = 'mv';
const dims = 8;
const maxVectors = 12;
const total = 120;
const next = seededRandom(5959);

const randomVector = () => Array.from({ length: dims }, () => Math.round((next() * 2 - 1) * 1e4) / 1e4);
const tokensOf = (n: number) => Array.from({ length: n }, randomVector);
const unit = (v: readonly number[]) => {
  const norm = Math.hypot(...v);
  return v.map((x) => x / norm);
};

/** MaxSim under cosine, written out: Σ over query vectors of the best cosine to any document vector. */
function maxSim(query: readonly number[][], doc: readonly number[][]): number {
  const d = doc.map(unit);
  return query.map(unit).reduce((sum, q) => {
    let best = -Infinity;
    for (const v of d)
      best = Math.max(
        best,
        q.reduce((s, x, i) => s + x * v[i]!, 0),
      );
    return sum + best;
  }, 0);
}

const docs = new Map<string, Doc>();

function exhaustive(q: number[][], allow: (d: Doc) => boolean, reader: 'user' | 'admin', k: number) {
  return [...docs.values()]
    .filter((d) => (reader === 'admin' || !d.private) && allow(d))
    .map((d) => ({ id: d.id, score: maxSim(q, d.tokens) }))
    .sort((a, b) => b.score - a.score)
    .slice(0, k);
}

function assertRanked(hits: readonly Hit[], expected: readonly { id: string; score: number }[]) {
  assert.deepEqual(
    hits.map((h) => h.document_id),
    expected.map((e) => e.id),
  );
  hits.forEach((h, i) => assert.ok(Math.abs(h.score - expected[i]!.score) < 1e-4, `${h.document_id} score`));
}

let server: TestServer;
let grpc: GrpcClient;
let admin: Awaited<ReturnType<TestServer['registerTenant']>>;
let user: Awaited<ReturnType<TestServer['addUser']>>;

async function query(body: Record<string, unknown>, token = admin.token, on: TestServer = server) {
  return on.call('POST', '/api/v1/search/query', token, { primary_table: table, ...body });
}

async function multiStage(q: number[][], options: Record<string, unknown> = {}, token = admin.token, on = server) {
  const res = await query(
    {
      prefetch: [{ kind: 'multi_vector', vector_name: 'colbert', multi_vector: q, limit: 10, ...options }],
      limit: 100,
    },
    token,
    on,
  );
  assert.equal(res.status, 200, res.text.slice(0, 500));
  return (res.body as unknown as Answer).results;
}

const collectionBody = {
  name: table,
  vectors: {
    dense: { dimensions: dims, distance: 'cosine', storage: 'f32' },
    colbert: { dimensions: dims, distance: 'cosine', storage: 'f32', multi: { max_vectors: maxVectors } },
  },
};

const docBody = (d: Doc) => ({
  id: d.id,
  title: `doc ${d.id}`,
  content: `content of ${d.id}`,
  primary_table: table,
  vectors: { dense: d.dense },
  multi_vectors: { colbert: d.tokens },
  metadata: { bucket: d.bucket },
  visibility: d.private ? 'private' : 'public',
});

before(async () => {
  server = await startGrpcTestServer({ RATE_LIMIT_RPS: '100000', RATE_LIMIT_BURST: '100000' });
  grpc = grpcClient(server, 'SearchService');
  admin = await server.registerTenant();
  user = await server.addUser(admin);
  const created = await server.call('POST', '/api/v1/collections', admin.token, collectionBody);
  assert.equal(created.status, 201, created.text);
  const batch: Doc[] = Array.from({ length: total }, (_, i) => ({
    id: `m-${String(i).padStart(3, '0')}`,
    tokens: tokensOf(1 + Math.floor(next() * maxVectors)),
    dense: randomVector(),
    bucket: i % 10,
    private: i % 4 === 0,
  }));
  for (const d of batch) docs.set(d.id, d);
  const res = await server.call('POST', '/api/v1/documents/batch', admin.token, batch.map(docBody));
  assert.equal(res.status, 200, res.text.slice(0, 300));
});
after(async () => {
  grpc?.close();
  await server?.close();
});

describe('multi_vector stage against exhaustive MaxSim', () => {
  test('with candidates covering the collection, its top-k is the exact MaxSim top-k, with filters and access', async () => {
    for (const reader of ['user', 'admin'] as const) {
      const token = reader === 'user' ? user.token : admin.token;
      for (let t = 0; t < 4; t += 1) {
        const q = tokensOf(1 + Math.floor(next() * 6));
        const limit = t % 2 === 0 ? 10 : 40;
        assertRanked(
          await multiStage(q, { limit, candidates: total }, token),
          exhaustive(q, () => true, reader, limit),
        );
        assertRanked(
          await multiStage(
            q,
            { limit, candidates: total, filters: [{ field: 'metadata.bucket', operator: 'lt', value: 3 }] },
            token,
          ),
          exhaustive(q, (d) => d.bucket < 3, reader, limit),
        );
      }
    }
  });

  test('a private document is not seen by another user, even when it is the best match', async () => {
    const hidden = [...docs.values()].find((d) => d.private)!;
    const q = hidden.tokens.slice(0, 3);
    const own = await multiStage(q, { limit: 5, candidates: total });
    assert.equal(own[0]?.document_id, hidden.id);
    const other = await multiStage(q, { limit: total, candidates: total }, user.token);
    assert.ok(!other.some((h) => h.document_id === hidden.id));
    assertRanked(
      other,
      exhaustive(q, () => true, 'user', total),
    );
  });

  test('a rescore by multi_vector scores the candidates by exact MaxSim', async () => {
    const q = tokensOf(4);
    const res = await query({
      prefetch: [{ kind: 'dense', vector_name: 'dense', vector: randomVector(), limit: 50 }],
      rescore: { vector_name: 'colbert', multi_vector: q },
      limit: 50,
    });
    assert.equal(res.status, 200, res.text.slice(0, 500));
    const results = (res.body as unknown as Answer).results;
    assert.equal(results.length, 50);
    const expected = results
      .map((h) => ({ id: h.document_id, score: maxSim(q, docs.get(h.document_id)!.tokens) }))
      .sort((a, b) => b.score - a.score);
    assertRanked(results, expected);
  });

  test('with fewer candidates than documents, the token index still finds nearly all of the exact top 10', async () => {
    // Candidates are gathered token by token from the HNSW index, then scored exactly: what it can miss is a
    // document none of whose vectors is among a query vector's nearest. Fixed seed, so the floor is stable.
    let found = 0;
    const queries = 20;
    for (let t = 0; t < queries; t += 1) {
      const q = tokensOf(2 + (t % 4));
      const exact = new Set(exhaustive(q, () => true, 'admin', 10).map((e) => e.id));
      const hits = await multiStage(q, { limit: 10, candidates: 10 });
      found += hits.filter((h) => exact.has(h.document_id)).length;
    }
    assert.ok(found / (queries * 10) >= 0.95, `recall@10 ${found / (queries * 10)}`);
  });

  test('gRPC answers what REST answers', async () => {
    const q = tokensOf(3);
    const stage = { kind: 'multi_vector', vector_name: 'colbert', limit: 15, candidates: total };
    const rest = await multiStage(q, { limit: 15, candidates: total }, user.token);
    const reply = await grpcCall<Answer>(
      grpc,
      'Query',
      { primary_table: table, prefetch: [{ ...stage, multi_vector: JSON.stringify(q) }], limit: 100 },
      { authorization: `Bearer ${user.token}` },
    );
    assert.deepEqual(
      reply.results.map((h) => [h.document_id, h.score]),
      rest.map((h) => [h.document_id, h.score]),
    );
  });
});

describe('multi-vector bad input answers 400 naming the field', () => {
  const add = (multi: unknown, extra: Record<string, unknown> = {}) =>
    server.call('POST', '/api/v1/documents', admin.token, {
      title: 'bad',
      content: 'bad',
      primary_table: table,
      multi_vectors: multi,
      ...extra,
    });
  const cases: [string, () => ReturnType<typeof add>, string][] = [
    ['more vectors than max_vectors', () => add({ colbert: tokensOf(maxVectors + 1) }), 'body.multi_vectors.colbert'],
    [
      'a vector of the wrong dimensions',
      () => add({ colbert: [randomVector(), [1, 2, 3]] }),
      'body.multi_vectors.colbert',
    ],
    ['an empty list', () => add({ colbert: [] }), 'body.multi_vectors.colbert'],
    ['an undeclared name', () => add({ other: tokensOf(2) }), 'body.multi_vectors.other'],
    [
      'a single vector for a multi name',
      () => add(undefined, { vectors: { colbert: randomVector() } }),
      'body.vectors.colbert',
    ],
  ];
  for (const [what, send, field] of cases) {
    test(`a document with ${what}`, async () => {
      const res = await send();
      assert.equal(res.status, 400, res.text);
      assert.ok(res.body.error?.field?.startsWith(field), `${res.body.error?.field} ${field}`);
      assert.ok(res.body.error?.message.length, res.text);
    });
  }

  test('a stage or rescore with a bad query', async () => {
    const expect = async (body: Record<string, unknown>, field: string) => {
      const res = await query({ limit: 5, ...body });
      assert.equal(res.status, 400, res.text);
      assert.equal(res.body.error?.field, field, res.text);
    };
    const stage = (extra: Record<string, unknown>) => ({
      prefetch: [{ kind: 'multi_vector', limit: 5, ...extra }],
    });
    await expect(stage({ vector_name: 'colbert', multi_vector: [[1, 2]] }), 'body.prefetch[0].multi_vector[0]');
    await expect(stage({ vector_name: 'colbert', multi_vector: [] }), 'body.prefetch[0].multi_vector');
    await expect(stage({ vector_name: 'dense', multi_vector: tokensOf(1) }), 'body.prefetch[0].vector_name');
    await expect(stage({ multi_vector: tokensOf(1) }), 'body.prefetch[0].vector_name');
    await expect(
      {
        prefetch: [{ kind: 'text', query: 'doc', limit: 5 }],
        rescore: { vector_name: 'colbert', multi_vector: [[0, 0, 0, 0, 0, 0, 0, 0]] },
      },
      'body.rescore.multi_vector[0]',
    );
  });
});

describe('multi-vectors last', () => {
  test('a restart keeps them', async () => {
    const q = tokensOf(3);
    const { before, after } = await readAcrossRestart(
      async (first, owner) => {
        assert.equal((await first.call('POST', '/api/v1/collections', owner.token, collectionBody)).status, 201);
        const some = [...docs.values()].slice(0, 60);
        const res = await first.call('POST', '/api/v1/documents/batch', owner.token, some.map(docBody));
        assert.equal(res.status, 200, res.text.slice(0, 300));
      },
      (on, token) => multiStage(q, { limit: 20, candidates: 60 }, token, on),
    );
    assert.equal(before.length, 20);
    assert.deepEqual(after, before);
  });

  test('a snapshot and its restore keep them', async () => {
    const q = tokensOf(3);
    const before = await multiStage(q, { limit: 20, candidates: total });
    const [top] = before;
    assert.ok(top);
    // Changed after the snapshot: the restore brings back what it held.
    await snapshotChangeRestore(server, admin.token, async () => {
      assert.equal((await server.call('DELETE', `/api/v1/documents/${top.document_id}`, admin.token)).status, 200);
      assert.notEqual((await multiStage(q, { limit: 20, candidates: total }))[0]?.document_id, top.document_id);
    });
    assert.deepEqual(await multiStage(q, { limit: 20, candidates: total }), before);
  });
});
