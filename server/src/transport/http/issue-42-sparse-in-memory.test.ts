import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { seededRandom } from '../../test-support/fuzz-inputs.js';
import { grpcCall, grpcClient, startGrpcTestServer, type GrpcClient } from '../../test-support/grpc.js';
import type { TestServer } from '../../test-support/server.js';

// The sparse stage on in-memory posting lists with MaxScore pruning (issue #42, decision 0070), over HTTP: many
// random queries against exhaustive dot products of what the test wrote (as float32, what the index holds), for a
// user and an admin, with a filter; the same after updates, deletes, additions, a refused batch (its transaction
// rolled back) and a restart. And sparse vectors readable: GET with include_embeddings, the pipeline's with_vectors,
// over REST and gRPC.

type Hit = { document_id: string; score: number; sparse_vectors?: Record<string, Sparse>; vectors?: unknown };
interface Sparse {
  indices: number[];
  values: number[];
}
interface Doc {
  id: string;
  sparse: Sparse;
  bucket: number;
  private: boolean;
}

const table = 'mem';
const vocabulary = 500;
const next = seededRandom(4270);

/** Zipf-skewed distinct indices (a few terms in most documents, as learned sparse vectors), values in (−0.3, 1). */
function sparseOf(n: number): Sparse {
  const picked = new Set<number>();
  for (let tries = 0; picked.size < n && tries < n * 20; tries += 1) picked.add(Math.floor(vocabulary ** next()) - 1);
  const indices = [...picked].sort((a, b) => a - b);
  return { indices, values: indices.map(() => Math.round((next() * 1.3 - 0.3) * 1e4) / 1e4) };
}

const docs = new Map<string, Doc>();

function exhaustive(q: Sparse, reader: 'user' | 'admin', k: number, allow: (d: Doc) => boolean = () => true) {
  return [...docs.values()]
    .filter((d) => (reader === 'admin' || !d.private) && allow(d))
    .flatMap((d) => {
      let score: number | undefined;
      q.indices.forEach((index, i) => {
        const at = d.sparse.indices.indexOf(index);
        if (at >= 0) score = (score ?? 0) + q.values[i]! * Math.fround(d.sparse.values[at]!);
      });
      return score === undefined ? [] : [{ id: d.id, score }];
    })
    .sort((a, b) => b.score - a.score)
    .slice(0, k);
}

let server: TestServer;
let admin: Awaited<ReturnType<TestServer['registerTenant']>>;
let user: Awaited<ReturnType<TestServer['addUser']>>;
let grpc: GrpcClient;
const dataDir = mkdtempSync(join(tmpdir(), 'godb-sparse-memory-'));
const env = { DATA_DIR: dataDir, RATE_LIMIT_RPS: '100000', RATE_LIMIT_BURST: '100000' };

const docBody = (d: Doc) => ({
  id: d.id,
  title: `doc ${d.id}`,
  primary_table: table,
  vectors: { dense: [1, next(), next(), 0.5] },
  sparse_vectors: { splade: d.sparse },
  metadata: { bucket: d.bucket },
  visibility: d.private ? 'private' : 'public',
});

async function stage(q: Sparse, limit: number, token: string, filters?: unknown) {
  const res = await server.call('POST', '/api/v1/search/query', token, {
    primary_table: table,
    prefetch: [{ kind: 'sparse', vector_name: 'splade', sparse_vector: q, limit, ...(filters ? { filters } : {}) }],
    limit,
  });
  assert.equal(res.status, 200, res.text.slice(0, 500));
  return (res.body as unknown as { results: Hit[] }).results;
}

/** Many random queries, each for a user and an admin, unfiltered and filtered: ids and scores as exhaustive. */
async function assertExact(what: string, queries = 25) {
  for (let n = 0; n < queries; n += 1) {
    const q = sparseOf(2 + Math.floor(next() * 18));
    const limit = [1, 10, 25, 80][n % 4]!;
    for (const reader of ['user', 'admin'] as const) {
      const token = reader === 'user' ? user.token : admin.token;
      const cases = [
        { got: await stage(q, limit, token), expected: exhaustive(q, reader, limit) },
        {
          got: await stage(q, limit, token, [{ field: 'metadata.bucket', operator: 'lt', value: 2 }]),
          expected: exhaustive(q, reader, limit, (d) => d.bucket < 2),
        },
      ];
      for (const { got, expected } of cases) {
        assert.deepEqual(
          got.map((h) => h.document_id),
          expected.map((e) => e.id),
          `${what}: query ${n}, ${reader}`,
        );
        got.forEach((h, i) => assert.ok(Math.abs(h.score - expected[i]!.score) < 1e-6, `${what}: ${h.document_id}`));
      }
    }
  }
}

before(async () => {
  server = await startGrpcTestServer(env);
  admin = await server.registerTenant();
  user = await server.addUser(admin);
  grpc = grpcClient(server, 'SearchService');
  const created = await server.call('POST', '/api/v1/collections', admin.token, {
    name: table,
    vectors: { dense: { dimensions: 4, distance: 'cosine' } },
    sparse_vectors: { splade: {}, other: {} },
  });
  assert.equal(created.status, 201, created.text);
  const batch = Array.from({ length: 600 }, (_, i) => ({
    id: `m-${String(i).padStart(4, '0')}`,
    sparse: sparseOf(3 + Math.floor(next() * 30)),
    bucket: i % 5,
    private: i % 3 === 0,
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
  rmSync(dataDir, { recursive: true, force: true });
});

describe('the pruned sparse stage stays exact', () => {
  test('on random data, many queries, with the access rule and a filter', async () => {
    await assertExact('fresh');
  });

  test('after updates, deletes, additions and a refused batch', async () => {
    const ids = [...docs.keys()];
    for (const id of ids.filter((_id, i) => i % 7 === 0)) {
      const sparse = sparseOf(3 + Math.floor(next() * 30));
      const res = await server.call('PATCH', `/api/v1/documents/${id}`, admin.token, {
        sparse_vectors: { splade: sparse },
      });
      assert.equal(res.status, 200, res.text);
      docs.get(id)!.sparse = sparse;
    }
    for (const id of ids.filter((_id, i) => i % 5 === 1)) {
      assert.equal((await server.call('DELETE', `/api/v1/documents/${id}`, admin.token)).status, 200);
      docs.delete(id);
    }
    const added = Array.from({ length: 80 }, (_, i) => ({
      id: `n-${i}`,
      sparse: sparseOf(3 + Math.floor(next() * 30)),
      bucket: i % 5,
      private: i % 4 === 0,
    }));
    const res = await server.call('POST', '/api/v1/documents/batch', admin.token, added.map(docBody));
    assert.equal(res.status, 200, res.text.slice(0, 300));
    for (const d of added) docs.set(d.id, d);
    // A batch whose last document names an undeclared sparse vector is refused whole: the postings of the others,
    // written in its transaction, roll back and must not be found.
    const refused = [0, 1, 2].map((i) => ({ id: `r-${i}`, sparse: { indices: [0, 1], values: [50, 50] }, bucket: 0 }));
    const bad = await server.call('POST', '/api/v1/documents/batch', admin.token, [
      ...refused.map((d) => docBody({ ...d, private: false })),
      {
        ...docBody({ ...refused[0]!, id: 'r-bad', private: false }),
        sparse_vectors: { nope: { indices: [1], values: [1] } },
      },
    ]);
    assert.equal(bad.status, 400, bad.text);
    await assertExact('after writes');
  });

  test('after a restart (the lists are built again from SQLite)', async () => {
    grpc.close();
    await server.close();
    server = await startGrpcTestServer(env);
    grpc = grpcClient(server, 'SearchService');
    admin = { ...admin, token: await server.login(admin.email, admin.password) };
    user = { ...user, token: await server.login(user.email, 'password-1234') };
    await assertExact('restarted', 15);
  });
});

describe('sparse vectors are readable', () => {
  const some = () => [...docs.values()].find((d) => !d.private)!;

  test('GET with include_embeddings answers them under their names, as given', async () => {
    const d = some();
    const plain = await server.call('GET', `/api/v1/documents/${d.id}`, admin.token);
    assert.equal(plain.status, 200, plain.text);
    const res = await server.call('GET', `/api/v1/documents/${d.id}?include_embeddings=true`, admin.token);
    assert.equal(res.status, 200, res.text);
    const doc = (res.body as { document: { sparse_vectors?: unknown } }).document;
    assert.deepEqual(doc.sparse_vectors, { splade: d.sparse });
  });

  test('the pipeline’s with_vectors answers them (true, or by name), over REST and gRPC alike', async () => {
    const q = sparseOf(8);
    const body = (withVectors: unknown) => ({
      primary_table: table,
      prefetch: [{ kind: 'sparse', vector_name: 'splade', sparse_vector: q, limit: 5 }],
      limit: 5,
      with_vectors: withVectors,
    });
    const all = await server.call('POST', '/api/v1/search/query', user.token, body(true));
    assert.equal(all.status, 200, all.text);
    const hits = (all.body as unknown as { results: Hit[] }).results;
    assert.ok(hits.length > 0);
    for (const h of hits) {
      assert.deepEqual(h.sparse_vectors, { splade: docs.get(h.document_id)!.sparse });
      assert.ok(h.vectors && 'dense' in (h.vectors as object), 'dense vectors too');
    }
    const named = await server.call('POST', '/api/v1/search/query', user.token, body(['splade']));
    assert.equal(named.status, 200, named.text);
    for (const h of (named.body as unknown as { results: Hit[] }).results) {
      assert.deepEqual(h.sparse_vectors, { splade: docs.get(h.document_id)!.sparse });
      assert.equal(h.vectors, undefined, 'no dense vector asked');
    }
    // gRPC carries with_vectors as JSON text (a choice of true or names).
    const grpcBody = { ...body(null), with_vectors: JSON.stringify(['splade']) };
    const viaGrpc = await grpcCall<{ results: { document_id: string; sparse_vectors: Record<string, string> }[] }>(
      grpc,
      'Query',
      grpcBody,
      { authorization: `Bearer ${user.token}` },
    );
    // A map's values are JSON text over gRPC, as `vectors` are.
    assert.deepEqual(
      viaGrpc.results.map((h) => [
        h.document_id,
        Object.fromEntries(Object.entries(h.sparse_vectors).map(([k, v]) => [k, JSON.parse(v) as unknown])),
      ]),
      hits.map((h) => [h.document_id, h.sparse_vectors]),
    );
    const unknown = await server.call('POST', '/api/v1/search/query', user.token, body(['nope']));
    assert.equal(unknown.status, 400, unknown.text);
    assert.equal(unknown.body.error?.field, 'body.with_vectors[0]');
    assert.match(unknown.body.error!.message, /dense, splade, other/);
  });
});
