import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { seededRandom } from '../../test-support/fuzz-inputs.js';
import { grpcCall, grpcClient, startGrpcTestServer, type GrpcClient } from '../../test-support/grpc.js';
import type { TestServer } from '../../test-support/server.js';

// The query pipeline (issue #42) over HTTP on random data, each stage against a brute-force reference computed here
// from what the test wrote: dense stages against exact cosine over what the caller may read, filter stages against
// the filter applied by hand, fusion, rescore, formula, MMR and group_by against their formulas over the stages'
// explained lists; filters and the access rule inside every stage; gRPC answering what REST answers.

type Hit = { document_id: string; score: number };
type Explained = { stage: string; kind: string; hits: Hit[] };
type Answer = {
  results: (Hit & { vectors?: Record<string, number[]>; fields?: Record<string, unknown> })[];
  groups?: { value: string; document_ids: string[] }[];
  total_hits: number;
  explain?: Explained[];
  notes?: string[];
};

let server: TestServer;
let admin: Awaited<ReturnType<TestServer['registerTenant']>>;
let user: Awaited<ReturnType<TestServer['addUser']>>;
let grpc: GrpcClient;

const table = 'qp';
const dims = 8;
const total = 240;
const words = ['shock', 'wave', 'boundary', 'layer', 'flow', 'heat', 'plate', 'jet', 'wing', 'vortex', 'drag', 'lift'];
const now = Math.floor(Date.now() / 1000);

const next = seededRandom(4242);
const vectorOf = () => Array.from({ length: dims }, () => next() * 2 - 1);
const pick = <T>(xs: readonly T[]) => xs[Math.floor(next() * xs.length)]!;

interface Doc {
  id: string;
  a: number[];
  b: number[];
  bucket: number;
  stars: number;
  published: number;
  author: string;
  tags: string[];
  private: boolean;
  title: string;
}
const docs = new Map<string, Doc>();

const cosine = (x: readonly number[], y: readonly number[]) => {
  let dot = 0;
  let nx = 0;
  let ny = 0;
  for (let i = 0; i < x.length; i += 1) {
    dot += x[i]! * y[i]!;
    nx += x[i]! ** 2;
    ny += y[i]! ** 2;
  }
  return dot / Math.sqrt(nx * ny);
};

const readable = (reader: 'user' | 'admin') => [...docs.values()].filter((d) => reader === 'admin' || !d.private);

/** The exact top `k` by cosine on vector `name` of what a reader may see that a predicate allows. */
function nearest(q: number[], name: 'a' | 'b', allow: (d: Doc) => boolean, reader: 'user' | 'admin', k: number) {
  return readable(reader)
    .filter(allow)
    .map((d) => ({ id: d.id, score: cosine(q, d[name]) }))
    .sort((x, y) => y.score - x.score)
    .slice(0, k);
}

async function query(body: Record<string, unknown>, token = admin.token) {
  const res = await server.app.inject({
    method: 'POST',
    url: '/api/v1/search/query',
    headers: { authorization: `Bearer ${token}` },
    payload: { primary_table: table, ...body },
  });
  return {
    status: res.statusCode,
    body: res.json() as Answer & { error?: { code: string; message: string; field?: string } },
  };
}

async function ok(body: Record<string, unknown>, token = admin.token): Promise<Answer> {
  const res = await query(body, token);
  assert.equal(res.status, 200, JSON.stringify(res.body).slice(0, 500));
  return res.body;
}

const stageOf = (answer: Answer, stage: string) => {
  const found = answer.explain?.find((s) => s.stage === stage);
  assert.ok(found, `explain has ${stage}: ${answer.explain?.map((s) => s.stage).join(', ')}`);
  return found;
};

/** Asserts ranked hits equal a reference (ids in order, scores within float32 rounding). */
function assertRanked(hits: readonly Hit[], expected: readonly { id: string; score: number }[]) {
  assert.deepEqual(
    hits.map((h) => h.document_id),
    expected.map((e) => e.id),
  );
  hits.forEach((h, i) => assert.ok(Math.abs(h.score - expected[i]!.score) < 1e-5, `${h.document_id} score`));
}

/** Asserts a combined list holds exactly the expected scores, best first (ties in any order). */
function assertScores(hits: readonly Hit[], expected: Map<string, number>) {
  assert.deepEqual(new Set(hits.map((h) => h.document_id)), new Set(expected.keys()));
  for (const h of hits) assert.ok(Math.abs(h.score - expected.get(h.document_id)!) < 1e-5, `${h.document_id} score`);
  for (let i = 1; i < hits.length; i += 1) assert.ok(hits[i - 1]!.score >= hits[i]!.score - 1e-12);
}

before(async () => {
  server = await startGrpcTestServer({ RATE_LIMIT_RPS: '100000', RATE_LIMIT_BURST: '100000' });
  admin = await server.registerTenant();
  user = await server.addUser(admin);
  grpc = grpcClient(server, 'SearchService');
  const created = await server.call('POST', '/api/v1/collections', admin.token, {
    name: table,
    vectors: { a: { dimensions: dims, distance: 'cosine' }, b: { dimensions: dims, distance: 'cosine' } },
  });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const batch: Doc[] = Array.from({ length: total }, (_, i) => ({
    id: `d-${String(i).padStart(3, '0')}`,
    a: vectorOf(),
    b: vectorOf(),
    bucket: i % 10,
    stars: Math.floor(next() * 50),
    published: now - Math.floor(next() * 400 * 86400),
    author: `au-${i % 17}`,
    tags: [pick(['x', 'y', 'z'])],
    private: i % 5 === 0,
    title: Array.from({ length: 3 + Math.floor(next() * 4) }, () => pick(words)).join(' '),
  }));
  for (const d of batch) docs.set(d.id, d);
  for (let i = 0; i < batch.length; i += 120) {
    const res = await server.call(
      'POST',
      '/api/v1/documents/batch',
      admin.token,
      batch.slice(i, i + 120).map((d) => ({
        id: d.id,
        title: d.title,
        content: `${d.title} ${pick(words)} ${pick(words)}`,
        primary_table: table,
        vectors: { a: d.a, b: d.b },
        tags: d.tags,
        metadata: {
          bucket: d.bucket,
          stars: d.stars,
          published: new Date(d.published * 1000).toISOString(),
          author: d.author,
        },
        visibility: d.private ? 'private' : 'public',
      })),
    );
    assert.equal(res.status, 200, JSON.stringify(res.body).slice(0, 300));
  }
});
after(async () => {
  grpc?.close();
  await server.close();
});

const bucketBelow = (n: number) => [{ field: 'metadata.bucket', operator: 'lt', value: n }];

describe('query pipeline stages against brute force', () => {
  test('a dense stage is the exact nearest neighbours of what the caller may read, with its filters', async () => {
    for (const reader of ['user', 'admin'] as const) {
      for (let t = 0; t < 4; t += 1) {
        const q = vectorOf();
        const token = reader === 'user' ? user.token : admin.token;
        const answer = await ok(
          { prefetch: [{ kind: 'dense', vector_name: 'a', vector: q, limit: 15, filters: bucketBelow(4) }], limit: 15 },
          token,
        );
        assertRanked(
          answer.results,
          nearest(q, 'a', (d) => d.bucket < 4, reader, 15),
        );
      }
    }
  });

  test('a filter stage is the documents its filters and the request’s allow, in id order', async () => {
    const answer = await ok(
      {
        filters: [{ field: 'tags', operator: 'in', value: ['x'] }],
        prefetch: [{ kind: 'filter', limit: 20, filters: bucketBelow(3) }],
        limit: 20,
      },
      user.token,
    );
    const expected = readable('user')
      .filter((d) => d.tags.includes('x') && d.bucket < 3)
      .map((d) => d.id)
      .sort()
      .slice(0, 20);
    assert.deepEqual(
      answer.results.map((r) => r.document_id),
      expected,
    );
    assert.ok(answer.results.every((r) => r.score === 1));
  });

  test('a text stage ranks as text search does, within its own filters', async () => {
    const body = { query: 'shock wave', query_type: 'match', primary_table: table, limit: 20, filters: bucketBelow(5) };
    const text = await server.call('POST', '/api/v1/search/text', user.token, body);
    assert.equal(text.status, 200);
    const answer = await ok(
      { prefetch: [{ kind: 'text', query: 'shock wave', limit: 20, filters: bucketBelow(5) }], limit: 20 },
      user.token,
    );
    const expected = (text.body.results as Hit[]).map((r) => ({ id: r.document_id, score: r.score }));
    assert.ok(expected.length > 0);
    assertRanked(answer.results, expected);
  });

  test('rrf, dbsf and weighted fusion equal their formulas over the stages’ lists', async () => {
    const q = vectorOf();
    const prefetch = [
      { kind: 'text', query: 'boundary layer flow', limit: 30 },
      { kind: 'dense', vector_name: 'a', vector: q, limit: 30 },
      { kind: 'dense', vector_name: 'b', vector: vectorOf(), limit: 25, filters: bucketBelow(6) },
    ];
    const fusions = [
      { method: 'rrf', k: 60 },
      { method: 'rrf', k: 2, weights: [1, 2, 0.5] },
      { method: 'dbsf' },
      { method: 'weighted', weights: [0.2, 0.5, 0.3] },
    ];
    for (const fusion of fusions) {
      const answer = await ok({ prefetch, fusion, limit: 100, explain: true }, user.token);
      const lists = prefetch.map((_, i) => stageOf(answer, `body.prefetch[${i}]`).hits);
      assertRanked(
        lists[1]!,
        nearest(q, 'a', () => true, 'user', 30),
      );
      const weights = fusion.weights ?? [1, 1, 1];
      const expected = new Map<string, number>();
      lists.forEach((list, i) => {
        const scores = list.map((h) => h.score);
        const mean = scores.reduce((x, y) => x + y, 0) / scores.length;
        const sd = Math.sqrt(scores.reduce((x, y) => x + (y - mean) ** 2, 0) / scores.length);
        const [min, max] = [Math.min(...scores), Math.max(...scores)];
        list.forEach((h, rank) => {
          const part =
            fusion.method === 'rrf'
              ? 1 / ((fusion.k ?? 60) + rank + 1)
              : fusion.method === 'dbsf'
                ? Math.min(1, Math.max(0, (h.score - (mean - 3 * sd)) / (6 * sd)))
                : (h.score - min) / (max - min);
          expected.set(h.document_id, (expected.get(h.document_id) ?? 0) + weights[i]! * part);
        });
      });
      assertScores(stageOf(answer, 'body.fusion').hits, expected);
      assert.deepEqual(
        answer.results.map((r) => r.document_id),
        stageOf(answer, 'body.fusion').hits.map((h) => h.document_id),
      );
      assert.equal(answer.total_hits, expected.size);
    }
  });

  test('a rescore scores the union of the candidates exactly by another vector', async () => {
    const rq = vectorOf();
    const answer = await ok(
      {
        prefetch: [
          { kind: 'text', query: 'jet wing', limit: 20 },
          { kind: 'dense', vector_name: 'a', vector: vectorOf(), limit: 20 },
        ],
        rescore: { vector_name: 'b', vector: rq },
        limit: 100,
        explain: true,
      },
      user.token,
    );
    const union = new Set([0, 1].flatMap((i) => stageOf(answer, `body.prefetch[${i}]`).hits.map((h) => h.document_id)));
    const expected = [...union]
      .map((id) => ({ id, score: cosine(rq, docs.get(id)!.b) }))
      .sort((x, y) => y.score - x.score);
    assertRanked(answer.results, expected);
  });

  test('nested stages fuse first; a formula with a decay and a multiplier is exact', async () => {
    const q = vectorOf();
    const formula = {
      terms: [
        { value: '$score' },
        { weight: 0.01, value: 'metadata.stars' },
        { weight: 0.5, decay: { function: 'gauss', field: 'metadata.published', scale: 30 * 86400, decay: 0.5 } },
        {
          weight: 0.25,
          decay: { function: 'exp', field: 'metadata.published', origin: now, scale: 90 * 86400, offset: 86400 },
        },
      ],
      multipliers: [{ field: 'metadata.bucket', default: 1 }],
    };
    const answer = await ok(
      {
        prefetch: [
          {
            kind: 'nested',
            prefetch: [
              { kind: 'text', query: 'heat plate', limit: 20 },
              { kind: 'dense', vector_name: 'b', vector: q, limit: 20 },
            ],
            fusion: { method: 'dbsf' },
            limit: 30,
          },
          { kind: 'dense', vector_name: 'a', vector: vectorOf(), limit: 20 },
        ],
        fusion: { method: 'rrf' },
        formula,
        limit: 100,
        explain: true,
      },
      admin.token,
    );
    assert.ok(stageOf(answer, 'body.prefetch[0].fusion').hits.length <= 30 + 10);
    assert.equal(stageOf(answer, 'body.prefetch[0]').hits.length <= 30, true);
    const fused = stageOf(answer, 'body.fusion').hits;
    const origin = Date.now() / 1000;
    const expected = new Map(
      fused.map((h) => {
        const d = docs.get(h.document_id)!;
        // A gauss decay of the default origin (now): within a second of the test's clock.
        const gauss = 0.5 ** (((origin - d.published) / (30 * 86400)) ** 2);
        const exp = 0.5 ** (Math.max(0, now - d.published - 86400) / (90 * 86400));
        return [h.document_id, (h.score + 0.01 * d.stars + 0.5 * gauss + 0.25 * exp) * d.bucket] as const;
      }),
    );
    const boosted = stageOf(answer, 'body.formula').hits;
    assert.deepEqual(new Set(boosted.map((h) => h.document_id)), new Set(expected.keys()));
    for (const h of boosted) assert.ok(Math.abs(h.score - expected.get(h.document_id)!) < 1e-4, h.document_id);
    assert.deepEqual(
      answer.results.map((r) => r.document_id),
      boosted.map((h) => h.document_id),
    );
  });

  test('mmr picks what its definition picks over the best candidates', async () => {
    const q = vectorOf();
    for (const lambda of [0.3, 0.7]) {
      const answer = await ok(
        {
          prefetch: [{ kind: 'dense', vector_name: 'a', vector: q, limit: 40 }],
          mmr: { lambda, candidates: 30, vector_name: 'b' },
          limit: 10,
          explain: true,
        },
        user.token,
      );
      const pool = stageOf(answer, 'body.prefetch[0]').hits.slice(0, 30);
      const [min, max] = [Math.min(...pool.map((h) => h.score)), Math.max(...pool.map((h) => h.score))];
      const picked: Hit[] = [];
      const rest = [...pool];
      while (picked.length < 10) {
        let best = 0;
        let bestValue = -Infinity;
        rest.forEach((h, i) => {
          const rel = (h.score - min) / (max - min);
          const penalty =
            picked.length === 0
              ? 0
              : Math.max(...picked.map((p) => cosine(docs.get(p.document_id)!.b, docs.get(h.document_id)!.b)));
          const value = lambda * rel - (1 - lambda) * penalty;
          if (value > bestValue) {
            bestValue = value;
            best = i;
          }
        });
        picked.push(rest.splice(best, 1)[0]!);
      }
      assert.deepEqual(
        answer.results.map((r) => r.document_id),
        picked.map((h) => h.document_id),
      );
    }
  });

  test('group_by never splits or repeats a group; tags need a list mode', async () => {
    const answer = await ok(
      {
        prefetch: [{ kind: 'dense', vector_name: 'a', vector: vectorOf(), limit: 120 }],
        group_by: { field: 'metadata.author', group_size: 3, limit: 8 },
        explain: true,
      },
      user.token,
    );
    const ranked = stageOf(answer, 'body.prefetch[0]').hits.map((h) => h.document_id);
    const groups = answer.groups!;
    assert.equal(groups.length, 8);
    assert.equal(new Set(groups.map((g) => g.value)).size, 8);
    for (const g of groups) {
      const members = ranked.filter((id) => docs.get(id)!.author === g.value);
      assert.deepEqual(g.document_ids, members.slice(0, 3), `group ${g.value}`);
    }
    assert.deepEqual(
      answer.results.map((r) => r.document_id),
      groups.flatMap((g) => g.document_ids),
    );
    const bests = groups.map((g) => ranked.indexOf(g.document_ids[0]!));
    assert.deepEqual(
      bests,
      [...bests].sort((x, y) => x - y),
    );
    const refused = await query({
      prefetch: [{ kind: 'filter', limit: 10 }],
      group_by: { field: 'tags', group_size: 2, limit: 3 },
    });
    assert.equal(refused.status, 400);
    assert.equal(refused.body.error?.field, 'body.group_by.list');
    const each = await ok({
      prefetch: [{ kind: 'filter', limit: 50 }],
      group_by: { field: 'tags', list: 'each', limit: 3 },
    });
    assert.deepEqual(new Set(each.groups!.map((g) => g.value)), new Set(['x', 'y', 'z']));
  });

  test('no stage, fusion or step ever shows a document the caller may not read; stage filters hold', async () => {
    const answer = await ok(
      {
        prefetch: [
          { kind: 'text', query: 'vortex drag lift', limit: 50, filters: bucketBelow(7) },
          { kind: 'dense', vector_name: 'a', vector: vectorOf(), limit: 50, filters: bucketBelow(7) },
          { kind: 'filter', limit: 50, filters: bucketBelow(7) },
          {
            kind: 'nested',
            filters: bucketBelow(7),
            prefetch: [
              { kind: 'dense', vector_name: 'b', vector: vectorOf(), limit: 30 },
              { kind: 'text', query: 'shock', limit: 30 },
            ],
          },
        ],
        fusion: { method: 'dbsf' },
        mmr: { lambda: 0.5, candidates: 50, vector_name: 'a' },
        group_by: { field: 'metadata.author', group_size: 2, limit: 20 },
        with_vectors: ['a'],
        with_fields: ['metadata.bucket'],
        explain: true,
      },
      user.token,
    );
    assert.ok((answer.explain ?? []).length >= 8);
    for (const stage of answer.explain!)
      for (const h of stage.hits) {
        const d = docs.get(h.document_id)!;
        assert.equal(d.private, false, `${stage.stage} shows private ${h.document_id}`);
        assert.ok(d.bucket < 7, `${stage.stage} ignores its filters: ${h.document_id}`);
      }
    for (const r of answer.results) {
      const given = docs.get(r.document_id)!.a;
      assert.equal(r.vectors?.a?.length, dims);
      r.vectors.a.forEach((x, i) => assert.ok(Math.abs(x - given[i]!) < 1e-6, 'the vector as written (float32)'));
      assert.deepEqual(r.fields, { 'metadata.bucket': docs.get(r.document_id)!.bucket });
    }
  });
});

describe('query pipeline on a model’s vectors', () => {
  test('a dense stage ranks as vector search does; a rescore by the model equals it over the candidates', async () => {
    const texts = [
      ['m-shock', 'Shock waves', 'Shock waves interacting with the boundary layer cause separation.'],
      ['m-bl', 'Boundary layer transition', 'Laminar boundary layer transition on a flat plate.'],
      ['m-heat', 'Heat transfer', 'Convective heat transfer in pipes.'],
      ['m-wing', 'Wing lift', 'Lift and drag of a swept wing at low speed.'],
      ['m-jet', 'Jet noise', 'Noise of a supersonic jet and its shock cells.'],
    ];
    const added = await server.call(
      'POST',
      '/api/v1/documents/batch',
      admin.token,
      texts.map(([id, title, content]) => ({ id, title, content, embedding_options: { model_name: 'glove-100' } })),
    );
    assert.equal(added.status, 200, JSON.stringify(added.body).slice(0, 300));
    const question = 'shock waves and the boundary layer';
    const vector = await server.call('POST', '/api/v1/search/vector', admin.token, {
      query: question,
      primary_table: 'documents',
      vector_name: 'glove-100',
      threshold: 0,
      limit: 5,
    });
    assert.equal(vector.status, 200, JSON.stringify(vector.body));
    const order = (vector.body.results as Hit[]).map((r) => r.document_id);
    assert.equal(order.length, 5);
    const dense = await ok({
      primary_table: 'documents',
      prefetch: [{ kind: 'dense', vector_name: 'glove-100', query: question, limit: 5 }],
    });
    assert.deepEqual(
      dense.results.map((r) => r.document_id),
      order,
    );
    const rescored = await ok({
      primary_table: 'documents',
      prefetch: [
        { kind: 'text', query: 'shock', limit: 5 },
        { kind: 'text', query: 'wing heat', limit: 5 },
      ],
      rescore: { vector_name: 'glove-100', query: question },
      mmr: { lambda: 1, candidates: 10, vector_name: 'glove-100' },
    });
    const union = new Set(['m-shock', 'm-jet', 'm-wing', 'm-heat']);
    assert.deepEqual(
      rescored.results.map((r) => r.document_id),
      order.filter((id) => union.has(id)),
      'λ 1: MMR keeps the order of relevance',
    );
  });
});

describe('query pipeline bad input', () => {
  const cases: [string, Record<string, unknown>, number, string, RegExp][] = [
    [
      'an unknown stage kind',
      { prefetch: [{ kind: 'bm42', query: 'x' }] },
      400,
      'body.prefetch[0].kind',
      /allowed values/,
    ],
    [
      'a sparse stage without its sparse vector (decision 0058)',
      { prefetch: [{ kind: 'text', query: 'x' }, { kind: 'sparse' }] },
      400,
      'body.prefetch[1].sparse_vector',
      /sparse_vector is required by a sparse stage/,
    ],
    [
      'a vector name the collection does not declare',
      { prefetch: [{ kind: 'dense', vector_name: 'c', vector: [1, 2] }] },
      400,
      'body.prefetch[0].vector_name',
      /declares no vector "c"; expected one of: a, b/,
    ],
    [
      'fusion over one stage',
      { prefetch: [{ kind: 'text', query: 'x' }], fusion: { method: 'rrf' } },
      400,
      'body.fusion',
      /needs two stages or more/,
    ],
    [
      'fusion and rescore together',
      {
        prefetch: [
          { kind: 'text', query: 'x' },
          { kind: 'text', query: 'y' },
        ],
        fusion: { method: 'rrf' },
        rescore: { vector_name: 'a', vector: [1, 0, 0, 0, 0, 0, 0, 0] },
      },
      400,
      'body.rescore',
      /at most one/,
    ],
    [
      'weights that do not match the stages',
      {
        prefetch: [
          { kind: 'text', query: 'x' },
          { kind: 'text', query: 'y' },
        ],
        fusion: { method: 'weighted', weights: [1] },
      },
      400,
      'body.fusion.weights',
      /1 weights for 2 stages/,
    ],
    [
      'nesting deeper than three levels',
      {
        prefetch: [
          {
            kind: 'nested',
            prefetch: [{ kind: 'nested', prefetch: [{ kind: 'nested', prefetch: [{ kind: 'text', query: 'x' }] }] }],
          },
        ],
      },
      400,
      'body.prefetch[0].prefetch[0].prefetch[0].prefetch',
      /nest at most 3 levels/,
    ],
    [
      'a field a kind does not read',
      { prefetch: [{ kind: 'text', query: 'x', vector_name: 'a' }] },
      400,
      'body.prefetch[0].vector_name',
      /not read by a text stage/,
    ],
    ['a text stage without query', { prefetch: [{ kind: 'text' }] }, 400, 'body.prefetch[0].query', /query/i],
    [
      'a wrong-sized vector',
      { prefetch: [{ kind: 'dense', vector_name: 'a', vector: [1, 2, 3] }] },
      400,
      'body.prefetch[0].vector',
      /expected 8 numbers/,
    ],
    [
      'with_vectors naming a vector the collection does not declare',
      { prefetch: [{ kind: 'filter' }], with_vectors: ['a', 'zz'] },
      400,
      'body.with_vectors[1]',
      /declares no vector "zz"; expected one of its own vectors: a, b/,
    ],
    [
      'a formula term with neither value nor decay',
      { prefetch: [{ kind: 'text', query: 'x' }], formula: { terms: [{ weight: 2 }] } },
      400,
      'body.formula.terms[0]',
      /exactly one of value/,
    ],
  ];
  for (const [what, body, status, field, message] of cases)
    test(`${what}: ${status} naming ${field}`, async () => {
      const res = await query(body);
      assert.equal(res.status, status, JSON.stringify(res.body));
      assert.equal(res.body.error?.field, field);
      assert.match(res.body.error?.message ?? '', message);
    });
});

describe('gRPC Query', () => {
  test('answers what REST answers, and the same errors', async () => {
    const body = {
      primary_table: table,
      prefetch: [
        { kind: 'text', query: 'boundary wave', limit: 20, filters: bucketBelow(8) },
        { kind: 'dense', vector_name: 'a', vector: vectorOf(), limit: 20 },
      ],
      fusion: { method: 'rrf', k: 10 },
      group_by: { field: 'metadata.author', group_size: 2, limit: 4 },
      offset: 1,
      explain: true,
    };
    const rest = await ok(body, user.token);
    const asGrpc = {
      ...body,
      prefetch: body.prefetch.map((s) => ({ ...s, ...('filters' in s && { filters: JSON.stringify(s.filters) }) })),
    };
    const reply = await grpcCall<Answer>(grpc, 'Query', asGrpc, { authorization: `Bearer ${user.token}` });
    assert.deepEqual(
      reply.results.map((r) => [r.document_id, r.score]),
      rest.results.map((r) => [r.document_id, r.score]),
    );
    assert.deepEqual(reply.groups, rest.groups);
    assert.deepEqual(reply.explain, rest.explain);
    await assert.rejects(
      grpcCall(
        grpc,
        'Query',
        { primary_table: table, prefetch: [{ kind: 'text', query: 'x' }], fusion: { method: 'rrf' } },
        {
          authorization: `Bearer ${user.token}`,
        },
      ),
      (error: Error & { code?: number }) => error.code === 3 && /needs two stages or more/.test(error.message),
    );
  });
});
