import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../../test-support/server.js';

type Result = { document_id: string; score: number };
type Body = { results?: Result[]; ranking?: string; error?: { message: string } };

let server: TestServer;
let token: string;

/**
 * Issue #37's case: three documents hold the query's words in shorter content (a little higher on the text side)
 * and point away from the query's vector; three without the words point a little closer to it than the two that
 * have both; other documents hold the words in longer content. Min-max put every text match below the best at
 * nearly 0, so the two found by both sides ranked under documents found by one.
 */
const words = 'boundary layer separation';
const filler = 'near the trailing edge of a flat plate model in the low speed wind tunnel at the royal aircraft'.split(
  ' ',
);
const document = (id: string, content: string, vector: number[]) => ({ id, content, vector });
const cases = (table: string, spread: boolean) =>
  [
    ...[1, 2, 3].map((i) => document(`text-${i}`, `${words} ${filler[i]}`, [0, 1])),
    ...[1, 2].map((i) => document(`both-${i}`, `${words} ${filler.slice(0, 4).join(' ')}`, [1, 0.12 + i / 100])),
    ...[1, 2, 3].map((i) => document(`vector-${i}`, `heat transfer in hypersonic flow ${filler[i]}`, [1, i / 100])),
    // Issue #37 measured 14 of 17 matches 5 % below the best three (tight); usually they spread out.
    ...Array.from({ length: 12 }, (_, i) =>
      document(`words-${i + 1}`, `${words} ${filler.slice(0, spread ? 4 + i : 4).join(' ')}`, [0.3, 1]),
    ),
  ].map((d) => ({
    id: `${table}-${d.id}`,
    title: d.id,
    content: d.content,
    primary_table: table,
    vectors: { v: d.vector },
  }));

const search = async (kind: string, table: string, body: Record<string, unknown>) => {
  const res = await server.call('POST', `/api/v1/search/${kind}`, token, {
    primary_table: table,
    limit: 10,
    ...(kind === 'text' ? { query: words, query_type: 'match', limit: 20 } : { vector: [1, 0], vector_name: 'v' }),
    ...(kind === 'hybrid' && { query: words }),
    ...(kind === 'vector' && { threshold: 0, limit: 20 }),
    ...body,
  });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body as Body;
};
const hybrid = (table: string, body: Record<string, unknown> = {}) => search('hybrid', table, body);
/** Result ids without the table's prefix. */
const rareCode = 'zq7731xk';
const ids = (body: Body) => (body.results ?? []).map((r) => r.document_id.replace(/^[a-z]+-/, ''));

before(async () => {
  server = await startTestServer({ RATE_LIMIT_RPS: '100000', RATE_LIMIT_BURST: '100000' });
  ({ token } = await server.registerTenant());
  for (const [table, spread] of [
    ['spread', true],
    ['tight', false],
  ] as const) {
    const created = await server.call('POST', '/api/v1/collections', token, {
      name: table,
      vectors: { v: { dimensions: 2 } },
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const added = await server.call('POST', '/api/v1/documents/batch', token, cases(table, spread));
    assert.equal(added.status, 200, JSON.stringify(added.body));
  }
  // One document holds a rare product code; its vector is a little farther from the query's than its neighbours'.
  const rare = await server.call('POST', '/api/v1/collections', token, {
    name: 'rare',
    vectors: { v: { dimensions: 2 } },
  });
  assert.equal(rare.status, 201, JSON.stringify(rare.body));
  const parts = await server.call(
    'POST',
    '/api/v1/documents/batch',
    token,
    [
      { id: 'rare-code', title: 'code', content: `replacement seal kit ${rareCode}`, vector: [1, 0.6] },
      ...Array.from({ length: 12 }, (_, i) => ({
        id: `rare-vector-${i + 1}`,
        title: `vector-${i + 1}`,
        content: `replacement seal kit model ${i + 1}`,
        vector: [1, i / 20],
      })),
    ].map(({ vector, ...d }) => ({ ...d, primary_table: 'rare', vectors: { v: vector } })),
  );
  assert.equal(parts.status, 200, JSON.stringify(parts.body));
});
after(async () => {
  await server.close();
});

describe('issue 37: hybrid fusion', () => {
  test('each side alone ranks documents found by one side a little above those found by both', async () => {
    for (const table of ['spread', 'tight']) {
      const text = ids(await search('text', table, {}));
      assert.deepEqual(text.slice(0, 3).sort(), ['text-1', 'text-2', 'text-3'], table);
      assert.ok(text.includes('both-1') && text.includes('both-2'), table);
      const vector = ids(await search('vector', table, {}));
      assert.deepEqual(vector.slice(0, 5), ['vector-1', 'vector-2', 'vector-3', 'both-1', 'both-2'], table);
    }
  });

  for (const [name, body] of [
    ['by default', {}],
    ['by default at alpha 0.5', { alpha: 0.5 }],
    ['with fusion rrf', { fusion: 'rrf' }],
  ] as const) {
    test(`documents found by both sides rank first ${name}`, async () => {
      const found = await hybrid('spread', body);
      assert.deepEqual(ids(found).slice(0, 2).sort(), ['both-1', 'both-2'], JSON.stringify(ids(found)));
    });
  }

  test('the default is dbsf_relative and says so; dbsf, weighted and rrf stay options', async () => {
    assert.equal((await hybrid('spread')).ranking, 'dbsf_relative');
    for (const fusion of ['dbsf', 'weighted', 'rrf'])
      assert.equal((await hybrid('spread', { fusion })).ranking, fusion);
  });

  test('with the matches as tight as issue 37 measured, documents found by both sides rank first by default', async () => {
    for (const body of [{}, { alpha: 0.5 }, { fusion: 'dbsf_relative', alpha: 0.3 }, { fusion: 'rrf' }]) {
      const found = ids(await hybrid('tight', body));
      assert.deepEqual(found.slice(0, 2).sort(), ['both-1', 'both-2'], `${JSON.stringify(body)}: ${found.join(' ')}`);
    }
    // What the issue met: min-max puts them under the vector-only documents too (7th); plain dbsf (σ tiny on the
    // text side) right under the three found by the text alone.
    assert.ok(ids(await hybrid('tight', { fusion: 'weighted' })).indexOf('both-1') >= 6);
    assert.deepEqual(
      ids(await hybrid('tight', { fusion: 'dbsf' }))
        .slice(3, 5)
        .sort(),
      ['both-1', 'both-2'],
    );
  });

  test('a rare product code only one document holds ranks that document first at alpha 0.5', async () => {
    const found = await hybrid('rare', { query: rareCode, alpha: 0.5 });
    assert.equal(found.ranking, 'dbsf_relative');
    assert.equal(ids(found)[0], 'code', ids(found).join(' '));
    // Its text side is 1, as plain dbsf's for one match, not 0.5 under a vector side reaching 1.
    assert.ok((found.results?.[0]?.score ?? 0) > 0.5, JSON.stringify(found.results?.slice(0, 3)));
  });
});
