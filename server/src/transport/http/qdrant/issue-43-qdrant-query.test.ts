import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { QdrantClient } from '@qdrant/js-client-rest';
import { startTestServer, type TestServer } from '../../../test-support/server.js';
import { cosine, freePort, tenantWithKey, testPoints, type TestPoint } from '../../../test-support/qdrant-points.js';

// Issue #43: Qdrant's universal query (prefetch, fusion, rescoring, MMR, groups) through the official JS client,
// unmodified, mapped onto GoDB's query pipeline; answers compared with brute force over the same points and with the
// same request through GoDB's own /api/v1/search/query.

const dims = 8;
const points = testPoints(400, dims, 7);
const collection = 'staged';
let server: TestServer;
let client: QdrantClient;
let godbToken: string;
let qdrantUrl: string;
let qdrantKey: string;

const query = (seed: number) => testPoints(1, dims, seed)[0]!.vector;
const byId = new Map(points.map((p) => [String(p.id), p]));
const vectorOf = (id: unknown) => byId.get(String(id))!.vector;

/** The points nearest `vector` (cosine) among those `keep` allows, best first: brute force. */
function brute(vector: number[], limit: number, keep: (p: TestPoint) => boolean = () => true) {
  return points
    .filter(keep)
    .map((p) => ({ id: p.id, score: cosine(vector, p.vector) }))
    .sort((a, b) => b.score - a.score)
    .slice(0, limit);
}

/** Reciprocal rank fusion by Qdrant's formula: Σ 1 / (k + position), position from 0 in each list, k 2. */
function rrf(lists: { id: unknown }[][], k = 2) {
  const scores = new Map<string, number>();
  for (const list of lists)
    list.forEach((hit, i) => scores.set(String(hit.id), (scores.get(String(hit.id)) ?? 0) + 1 / (k + i)));
  return scores;
}

const round = (x: number) => Math.round(x * 1e5) / 1e5;
const close = (a: number, b: number, what: string) => assert.ok(Math.abs(a - b) < 1e-4, `${what}: ${a} vs ${b}`);

/** GoDB's own pipeline answer for the same request. */
async function godbQuery(body: Record<string, unknown>) {
  const answer = await server.call('POST', '/api/v1/search/query', godbToken, { primary_table: collection, ...body });
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
  return answer.body as unknown as {
    results: { document_id: string; score: number }[];
    groups?: { value: string; document_ids: string[] }[];
  };
}
/** GoDB's document id of a Qdrant point id (integers as their decimal text, UUIDs as they are). */
const docId = (id: unknown) => `${collection}:${String(id)}`;

before(async () => {
  const port = await freePort();
  server = await startTestServer({ QDRANT_COMPAT_PORT: String(port), HOST: '127.0.0.1' });
  const tenant = await tenantWithKey(server);
  godbToken = tenant.token;
  qdrantUrl = `http://127.0.0.1:${port}`;
  qdrantKey = tenant.key;
  client = new QdrantClient({ url: qdrantUrl, apiKey: qdrantKey, checkCompatibility: false });
  await client.createCollection(collection, { vectors: { size: dims, distance: 'Cosine' } });
  await client.upsert(collection, { wait: true, points });
});
after(async () => {
  await server.close();
});

describe('points/query through the query pipeline', () => {
  test('rrf over two prefetches (one filtered) agrees with the formula and with GoDB’s own pipeline', async () => {
    const [a, b] = [query(1), query(2)];
    const oslo = { must: [{ key: 'city', match: { value: 'Oslo' } }] };
    const answer = await client.query(collection, {
      prefetch: [
        { query: a, limit: 30 },
        { query: b, limit: 30, filter: oslo },
      ],
      query: { fusion: 'rrf' },
      limit: 10,
      with_payload: true,
    });
    const expected = rrf([brute(a, 30), brute(b, 30, (p) => p.payload.city === 'Oslo')]);
    const best = [...expected.values()].sort((x, y) => y - x).slice(0, 10);
    assert.deepEqual(
      answer.points.map((p) => round(p.score)),
      best.map(round),
    );
    for (const p of answer.points) close(p.score, expected.get(String(p.id))!, `rrf score of ${p.id}`);
    assert.deepEqual(answer.points[0]!.payload, byId.get(String(answer.points[0]!.id))!.payload);
    const godb = await godbQuery({
      prefetch: [
        { kind: 'dense', vector: a, vector_name: 'default', limit: 30 },
        {
          kind: 'dense',
          vector: b,
          vector_name: 'default',
          limit: 30,
          filters: [{ field: 'metadata.city', operator: 'eq', value: 'Oslo' }],
        },
      ],
      fusion: { method: 'rrf', k: 1 },
      limit: 10,
    });
    assert.deepEqual(
      answer.points.map((p) => round(p.score)),
      godb.results.map((r) => round(r.score)),
    );
  });

  test('dbsf is GoDB’s dbsf; {rrf: {k}} sets the constant', async () => {
    const [a, b] = [query(3), query(4)];
    const prefetch = [
      { query: a, limit: 20 },
      { query: b, limit: 20 },
    ];
    const dbsf = await client.query(collection, { prefetch, query: { fusion: 'dbsf' }, limit: 8 });
    const godb = await godbQuery({
      prefetch: [
        { kind: 'dense', vector: a, vector_name: 'default', limit: 20 },
        { kind: 'dense', vector: b, vector_name: 'default', limit: 20 },
      ],
      fusion: { method: 'dbsf' },
      limit: 8,
    });
    assert.deepEqual(
      dbsf.points.map((p) => docId(p.id)),
      godb.results.map((r) => r.document_id),
    );
    const k10 = await client.query(collection, { prefetch, query: { rrf: { k: 10 } }, limit: 5 });
    const expected = rrf([brute(a, 20), brute(b, 20)], 10);
    for (const p of k10.points) close(p.score, expected.get(String(p.id))!, `rrf k=10 score of ${p.id}`);
  });

  test('a vector beside a prefetch rescores its candidates; offset and score_threshold apply after', async () => {
    const [a, b] = [query(5), query(6)];
    const candidates = brute(a, 50);
    const rescored = candidates
      .map((c) => ({ id: c.id, score: cosine(b, vectorOf(c.id)) }))
      .sort((x, y) => y.score - x.score);
    const answer = await client.query(collection, { prefetch: { query: a, limit: 50 }, query: b, limit: 5, offset: 2 });
    assert.deepEqual(
      answer.points.map((p) => p.id),
      rescored.slice(2, 7).map((r) => r.id),
    );
    for (const p of answer.points) close(p.score, cosine(b, vectorOf(p.id)), `rescored score of ${p.id}`);
    // Between the 4th and 5th scores: stored vectors are float32, so a score equal to one may fall just below it.
    const threshold = (rescored[3]!.score + rescored[4]!.score) / 2;
    const above = await client.query(collection, {
      prefetch: { query: a, limit: 50 },
      query: b,
      limit: 10,
      score_threshold: threshold,
    });
    assert.deepEqual(
      above.points.map((p) => p.id),
      rescored.slice(0, 4).map((r) => r.id),
    );
  });

  test('nested prefetches: rrf of two inside, rescored outside; also in query/batch', async () => {
    const [a, b, c] = [query(7), query(8), query(9)];
    const inner = rrf([brute(a, 30), brute(b, 30)]);
    const top = [...inner.entries()].sort((x, y) => y[1] - x[1]).slice(0, 20);
    const expected = top
      .map(([id]) => ({ id, score: cosine(c, vectorOf(id)) }))
      .sort((x, y) => y.score - x.score)
      .slice(0, 5);
    const request = {
      prefetch: {
        prefetch: [
          { query: a, limit: 30 },
          { query: b, limit: 30 },
        ],
        query: { fusion: 'rrf' as const },
        limit: 20,
      },
      query: c,
      limit: 5,
    };
    const answer = await client.query(collection, request);
    assert.deepEqual(
      answer.points.map((p) => String(p.id)),
      expected.map((e) => e.id),
    );
    const [batched, plain] = await client.queryBatch(collection, { searches: [request, { query: c, limit: 3 }] });
    assert.deepEqual(batched!.points, answer.points);
    assert.deepEqual(
      plain!.points.map((p) => p.id),
      brute(c, 3).map((x) => x.id),
    );
  });

  test('mmr: diversity 0 is plain nearest; diversity 0.6 is λ 0.4 in GoDB’s MMR and in the formula', async () => {
    const v = query(10);
    const none = await client.query(collection, {
      query: { nearest: v, mmr: { diversity: 0, candidates_limit: 40 } },
      limit: 6,
    });
    assert.deepEqual(
      none.points.map((p) => p.id),
      brute(v, 6).map((b) => b.id),
    );
    const diverse = await client.query(collection, {
      query: { nearest: v, mmr: { diversity: 0.6, candidates_limit: 40 } },
      limit: 6,
    });
    const godb = await godbQuery({
      prefetch: [{ kind: 'dense', vector: v, vector_name: 'default', limit: 40 }],
      mmr: { lambda: 0.4, candidates: 40, vector_name: 'default' },
      limit: 6,
    });
    assert.deepEqual(
      diverse.points.map((p) => docId(p.id)),
      godb.results.map((r) => r.document_id),
    );
    // The MMR formula by hand: λ · relevance (min-max normalised) − (1 − λ) · max similarity to those picked.
    const pool = brute(v, 40);
    const [min, max] = [pool.at(-1)!.score, pool[0]!.score];
    const picks: (typeof pool)[number][] = [];
    const left = [...pool];
    while (picks.length < 6) {
      let bestAt = 0;
      let bestValue = -Infinity;
      left.forEach((c, i) => {
        const penalty = picks.length === 0 ? 0 : Math.max(...picks.map((p) => cosine(vectorOf(p.id), vectorOf(c.id))));
        const value = 0.4 * ((c.score - min) / (max - min)) - 0.6 * penalty;
        if (value > bestValue) [bestValue, bestAt] = [value, i];
      });
      picks.push(left.splice(bestAt, 1)[0]!);
    }
    assert.deepEqual(
      diverse.points.map((p) => p.id),
      picks.map((p) => p.id),
    );
    assert.notDeepEqual(
      diverse.points.map((p) => p.id),
      none.points.map((p) => p.id),
    );
  });

  test('a point used as a query is left out of the answer, in a prefetch and with mmr as without', async () => {
    const example = points[3]!;
    const plain = await client.query(collection, { query: example.id, limit: 5 });
    const expected = brute(example.vector, 6)
      .filter((h) => String(h.id) !== String(example.id))
      .slice(0, 5)
      .map((h) => h.id);
    assert.deepEqual(
      plain.points.map((p) => p.id),
      expected,
    );
    const viaPrefetch = await client.query(collection, {
      prefetch: [{ query: example.id, limit: 20 }],
      query: example.id,
      limit: 5,
    });
    assert.deepEqual(
      viaPrefetch.points.map((p) => p.id),
      expected,
    );
    const viaMmr = await client.query(collection, { query: { nearest: example.id, mmr: { diversity: 0 } }, limit: 5 });
    assert.deepEqual(
      viaMmr.points.map((p) => p.id),
      expected,
    );
  });

  test('Euclid: a fusion’s scores stay fusion scores, a rescore answers distances', async () => {
    const euclid = 'staged_euclid';
    await client.createCollection(euclid, { vectors: { size: dims, distance: 'Euclid' } });
    await client.upsert(euclid, { wait: true, points: points.slice(0, 100) });
    const [a, b] = [query(31), query(32)];
    // One top-level prefetch that is itself a fusion: its RRF scores are not distances.
    const fused = await client.query(euclid, {
      prefetch: [
        {
          prefetch: [
            { query: a, limit: 20 },
            { query: b, limit: 20 },
          ],
          query: { fusion: 'rrf' },
          limit: 10,
        },
      ],
      limit: 5,
    });
    assert.equal(fused.points.length, 5);
    for (const p of fused.points) assert.ok(p.score > 0 && p.score <= 2 / 2 + 1e-9, `an RRF score: ${p.score}`);
    const distance = (v: number[], w: number[]) => Math.sqrt(v.reduce((sum, x, i) => sum + (x - w[i]!) ** 2, 0));
    const rescored = await client.query(euclid, { prefetch: [{ query: b, limit: 50 }], query: a, limit: 3 });
    for (const p of rescored.points) close(p.score, distance(a, vectorOf(p.id)), `distance of ${String(p.id)}`);
  });

  test('what the pipeline cannot do answers 400 naming it', async () => {
    const refusals: [string, () => Promise<unknown>, RegExp][] = [
      [
        'a formula',
        () =>
          client.query(collection, { prefetch: { query: query(1) }, query: { formula: { sum: ['$score'] } } as never }),
        /formula/,
      ],
      [
        'a prefetch score_threshold',
        () =>
          client.query(collection, {
            prefetch: [{ query: query(1), score_threshold: 0.5 }, { query: query(2) }],
            query: { fusion: 'rrf' },
          }),
        /score_threshold/,
      ],
      [
        'mmr beside a prefetch',
        () =>
          client.query(collection, {
            prefetch: { query: query(1) },
            query: { nearest: query(2), mmr: { diversity: 0.5 } },
          }),
        /mmr/,
      ],
      [
        'rrf weights',
        () =>
          client.query(collection, {
            prefetch: [{ query: query(1) }, { query: query(2) }],
            query: { rrf: { weights: [1, 2] } } as never,
          }),
        /weights/,
      ],
    ];
    for (const [feature, attempt, names] of refusals)
      await assert.rejects(attempt(), (error: { status?: number; data?: { status?: { error?: string } } }) => {
        assert.equal(error.status, 400, feature);
        assert.match(error.data?.status?.error ?? '', names, feature);
        assert.match(error.data?.status?.error ?? '', /not supported/, feature);
        return true;
      });
  });
});

describe('groups', () => {
  /** Brute-force groups: ranked points grouped by `key` in order of their best member, `size` each. */
  function bruteGroups(ranked: { id: unknown }[], key: string, size: number, limit: number) {
    const groups = new Map<string, unknown[]>();
    for (const hit of ranked) {
      const value = byId.get(String(hit.id))!.payload[key];
      if (value === undefined || value === null) continue;
      const members = groups.get(String(value)) ?? [];
      if (!groups.has(String(value))) groups.set(String(value), members);
      if (members.length < size) members.push(hit.id);
    }
    return [...groups.entries()].slice(0, limit).map(([id, ids]) => ({ id, ids }));
  }

  test('points/search/groups: groups of the nearest points by a payload key, Qdrant’s shape', async () => {
    const v = query(11);
    const answer = await client.searchPointGroups(collection, {
      vector: v,
      group_by: 'city',
      group_size: 2,
      limit: 3,
      with_payload: ['city'],
    });
    const expected = bruteGroups(brute(v, points.length), 'city', 2, 3);
    assert.deepEqual(
      answer.groups.map((g) => ({ id: g.id, ids: g.hits.map((h) => h.id) })),
      expected,
    );
    assert.deepEqual(answer.groups[0]!.hits[0]!.payload, { city: expected[0]!.id });
    close(answer.groups[0]!.hits[0]!.score, cosine(v, vectorOf(expected[0]!.ids[0])), 'group hit score');
    // Numbers group under their value, as numbers.
    const byCount = await client.searchPointGroups(collection, {
      vector: v,
      group_by: 'count',
      group_size: 1,
      limit: 2,
    });
    assert.equal(typeof byCount.groups[0]!.id, 'number');
  });

  test('points/query/groups: a fusion grouped, as GoDB’s group_by answers it', async () => {
    const [a, b] = [query(12), query(13)];
    const answer = await client.queryGroups(collection, {
      prefetch: [
        { query: a, limit: 60 },
        { query: b, limit: 60 },
      ],
      query: { fusion: 'rrf' },
      group_by: 'city',
      group_size: 2,
      limit: 4,
    });
    const fused = [...rrf([brute(a, 60), brute(b, 60)]).entries()]
      .sort((x, y) => y[1] - x[1])
      .map(([id]) => ({ id: byId.get(id)!.id }));
    const expected = bruteGroups(fused, 'city', 2, 4);
    assert.deepEqual(
      answer.groups.map((g) => g.id),
      expected.map((g) => g.id),
    );
    const godb = await godbQuery({
      prefetch: [
        { kind: 'dense', vector: a, vector_name: 'default', limit: 60 },
        { kind: 'dense', vector: b, vector_name: 'default', limit: 60 },
      ],
      fusion: { method: 'rrf', k: 1 },
      group_by: { field: 'metadata.city', group_size: 2, limit: 4 },
      limit: 4,
    });
    assert.deepEqual(
      answer.groups.map((g) => g.hits.map((h) => docId(h.id))),
      godb.groups!.map((g) => g.document_ids),
    );
  });
});

describe('review of the pipeline mapping', () => {
  /** A raw points/query (the client would check some fields itself): status and Qdrant's error text. */
  async function rawQuery(body: Record<string, unknown>, path = 'query') {
    const res = await fetch(`${qdrantUrl}/collections/${collection}/points/${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'api-key': qdrantKey },
      body: JSON.stringify(body),
    });
    const answer = (await res.json()) as { status?: { error?: string } };
    return { status: res.status, error: answer.status?.error ?? '' };
  }

  test('a fusion of one prefetch answers fusion scores, as Qdrant fuses one list too', async () => {
    const a = query(41);
    const prefetch = [{ query: a, limit: 20 }];
    const fused = await client.query(collection, { prefetch, query: { fusion: 'rrf' }, limit: 5, offset: 2 });
    const expected = brute(a, 20);
    assert.deepEqual(
      fused.points.map((p) => p.id),
      expected.slice(2, 7).map((p) => p.id),
    );
    fused.points.forEach((p, i) => close(p.score, 1 / (2 + i + 2), `rrf score at position ${i + 2}`));
    const k5 = await client.query(collection, { prefetch, query: { rrf: { k: 5 } }, limit: 3 });
    k5.points.forEach((p, i) => close(p.score, 1 / (5 + i), `rrf k=5 score at position ${i}`));
    const dbsf = await client.query(collection, { prefetch, query: { fusion: 'dbsf' }, limit: 20 });
    const mean = expected.reduce((sum, p) => sum + p.score, 0) / expected.length;
    const sigma = Math.sqrt(expected.reduce((sum, p) => sum + (p.score - mean) ** 2, 0) / expected.length);
    dbsf.points.forEach((p, i) => {
      const normalised = Math.min(1, Math.max(0, (expected[i]!.score - (mean - 3 * sigma)) / (6 * sigma)));
      close(p.score, normalised, `dbsf score of ${String(p.id)}`);
    });
    // Inside a prefetch too: the inner fusion's scores, passed through the outer level.
    const nested = await client.query(collection, {
      prefetch: [{ prefetch, query: { fusion: 'rrf' }, limit: 10 }],
      limit: 3,
    });
    nested.points.forEach((p, i) => close(p.score, 1 / (2 + i), `nested rrf score at position ${i}`));
  });

  test('limit and offset errors name the Qdrant request’s fields', async () => {
    const prefetch = [{ query: query(1) }, { query: query(2) }];
    const cases: [string, Record<string, unknown>, RegExp, string?][] = [
      ['limit above the maximum', { prefetch, query: { fusion: 'rrf' }, limit: 5000 }, /\blimit\b/],
      ['offset above the maximum', { prefetch, query: { fusion: 'rrf' }, offset: 5000 }, /\boffset\b/],
      ['a negative limit', { prefetch, query: { fusion: 'rrf' }, limit: -1 }, /\blimit\b/],
      [
        'a prefetch limit',
        { prefetch: [{ query: query(1), limit: 0 }], query: { fusion: 'rrf' } },
        /prefetch\[0\]\.limit/,
      ],
      ['mmr candidates', { query: { nearest: query(1), mmr: { candidates_limit: 0 } } }, /mmr\.candidates_limit/],
      ['a group limit', { query: query(1), group_by: 'city', limit: 5000 }, /\blimit\b/, 'query/groups'],
      ['a group size', { query: query(1), group_by: 'city', group_size: 500 }, /group_size/, 'query/groups'],
    ];
    for (const [what, body, names, path] of cases) {
      const { status, error } = await rawQuery(body, path);
      assert.equal(status, 400, what);
      assert.match(error, names, `${what}: ${error}`);
      assert.doesNotMatch(error, /body\.|group_by\.limit|primary_table/, `${what} names a GoDB field: ${error}`);
    }
  });
});
