import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { qdrantCompatibility, qdrantIgnoredSettings } from '@godb/contract';
import { startTestServer, type TestServer } from '../../../test-support/server.js';
import { tenantWithKey } from '../../../test-support/qdrant-points.js';
import { exactFilter } from './filter-prefilter.js';
import { qdrantRoutes } from './qdrant-api.js';

// Issue #43: the compatibility table says what is served, and each endpoint it calls supported answers.

const tablePath = fileURLToPath(new URL('../../../../../docs/qdrant-compatibility.md', import.meta.url));

/** docs/qdrant-compatibility.md as rendered from the contract's table (`WRITE_QDRANT_TABLE=1` rewrites it). */
function renderedTable(): string {
  const cell = (text: string) => text.replace(/\|/g, '\\|');
  return [
    '# Qdrant-compatible API: what is covered',
    '',
    'Generated from `contract/src/qdrant-compatibility.ts` (run the test `issue-43-qdrant-compatibility` with',
    '`WRITE_QDRANT_TABLE=1` after changing it). How it works and why: [decision 0052](decisions/0052-qdrant-compatible-api.md).',
    '',
    'Under `/qdrant` on `PORT` (`new QdrantClient({ url: "http://localhost:8081", prefix: "/qdrant", apiKey })`), and at',
    'Qdrant’s root paths on `QDRANT_COMPAT_PORT` when it is set. The key is a GoDB API key (`api-key` or',
    '`Authorization: Bearer`).',
    '',
    '| Endpoint | Supported | Notes |',
    '| --- | --- | --- |',
    ...qdrantCompatibility.map((r) => `| \`${cell(r.endpoint)}\` | ${r.supported} | ${cell(r.notes)} |`),
    '',
    'Accepted and ignored (they only tune speed, memory or placement):',
    '',
    ...qdrantIgnoredSettings.map((s) => `- ${s}`),
    '',
  ].join('\n');
}

describe('the compatibility table', () => {
  test('every served route has a row, and every supported row is served', () => {
    const served = new Set([
      'GET /',
      'GET /healthz',
      ...qdrantRoutes.map((r) => `${r.method} ${r.url.replace(/:(\w+)/g, '{$1}')}`),
    ]);
    const rows = qdrantCompatibility.flatMap((row) =>
      /^(GET|PUT|POST|PATCH|DELETE) \//.test(row.endpoint)
        ? row.endpoint.split(', ').map((endpoint) => ({ ...row, endpoint }))
        : [],
    );
    for (const endpoint of served)
      assert.ok(
        rows.some((r) => r.endpoint === endpoint),
        `${endpoint} has a row`,
      );
    for (const row of rows) assert.ok(served.has(row.endpoint), `${row.endpoint} is served`);
  });

  test('docs/qdrant-compatibility.md is the contract’s table', () => {
    if (process.env.WRITE_QDRANT_TABLE === '1') writeFileSync(tablePath, renderedTable());
    assert.equal(readFileSync(tablePath, 'utf8'), renderedTable());
  });
});

describe('the rows not covered by the client tests', () => {
  let server: TestServer;
  let key: string;
  const ask = async (method: 'GET' | 'POST' | 'PUT', url: string, payload?: unknown) => {
    const res = await server.app.inject({
      method,
      url: `/qdrant${url}`,
      headers: { 'api-key': key },
      ...(payload !== undefined && { payload: payload as object }),
    });
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers are read freely in assertions
    return { status: res.statusCode, body: res.json() as { result?: any; status: any } };
  };
  before(async () => {
    server = await startTestServer();
    key = (await tenantWithKey(server)).key;
    assert.equal((await ask('PUT', '/collections/c', { vectors: { size: 2, distance: 'Dot' } })).status, 200);
    const upsert = await ask('PUT', '/collections/c/points?wait=true', {
      batch: {
        ids: [1, 2, 3],
        vectors: [
          [1, 0],
          [0, 1],
          [1, 1],
        ],
        payloads: [{ a: 1 }, { a: 2 }, { a: 3 }],
      },
    });
    assert.equal(upsert.status, 200);
    assert.equal(upsert.body.result.status, 'completed');
  });
  after(async () => {
    await server.close();
  });

  test('root, health, a point by id, aliases', async () => {
    const root = await server.app.inject({ method: 'GET', url: '/qdrant' });
    assert.equal(root.statusCode, 200);
    assert.match((root.json() as { version: string }).version, /^1\.\d+\.\d+$/);
    assert.equal((await server.app.inject({ method: 'GET', url: '/qdrant/healthz' })).statusCode, 200);
    const point = await ask('GET', '/collections/c/points/2');
    assert.deepEqual(point.body.result, { id: 2, payload: { a: 2 }, vector: [0, 1] });
    assert.equal(point.body.status, 'ok');
    const missing = await ask('GET', '/collections/c/points/9');
    assert.equal(missing.status, 404);
    assert.match(missing.body.status.error, /Not found: Point with id 9/);
    assert.deepEqual((await ask('GET', '/aliases')).body.result, { aliases: [] });
    assert.deepEqual((await ask('GET', '/collections/c/aliases')).body.result, { aliases: [] });
    const alias = await ask('POST', '/collections/aliases', { actions: [] });
    assert.equal(alias.status, 400);
    assert.match(alias.body.status.error, /aliases is not supported/);
  });

  test('query and recommend in batches; deleting one vector is refused', async () => {
    const queries = await ask('POST', '/collections/c/points/query/batch', {
      searches: [
        { query: [1, 0], limit: 1 },
        { query: { nearest: [0, 1] }, limit: 1, with_payload: true },
      ],
    });
    assert.deepEqual(
      queries.body.result.map((r: { points: { id: number }[] }) => r.points.map((p) => p.id)),
      [[1], [2]],
    );
    assert.equal(queries.body.result[1].points[0].payload.a, 2);
    const recs = await ask('POST', '/collections/c/points/recommend/batch', {
      searches: [
        { positive: [1], limit: 2 },
        { positive: [[0, 1]], negative: [1], limit: 1 },
      ],
    });
    assert.deepEqual(
      recs.body.result.map((r: { id: number }[]) => r.map((p) => p.id)),
      [[3, 2], [2]],
    );
    const vectors = await ask('POST', '/collections/c/points/vectors/delete', { points: [1], vector: [''] });
    assert.equal(vectors.status, 400);
    assert.match(vectors.body.status.error, /not supported/);
  });

  test('a body that is not JSON, and an unknown route, answer Qdrant’s error shape', async () => {
    const broken = await server.app.inject({
      method: 'POST',
      url: '/qdrant/collections/c/points/count',
      headers: { 'api-key': key, 'content-type': 'application/json' },
      payload: '{',
    });
    assert.equal(broken.statusCode, 400);
    assert.equal(typeof (broken.json() as { status: { error: string } }).status.error, 'string');
    const unknown = await ask('GET', '/cluster');
    assert.equal(unknown.status, 404);
    assert.equal(typeof unknown.body.status.error, 'string');
  });
});

describe('filters passed down to GoDB', () => {
  const indexes = { 'metadata.city': 'keyword', 'metadata.count': 'integer', 'metadata.ok': 'bool' };
  test('only where a ready index guarantees the stored type, so GoDB answers the same', () => {
    assert.deepEqual(
      exactFilter('c', { must: [{ key: 'city', match: { value: 'Oslo' } }, { has_id: [1] }] }, indexes),
      {
        must: [
          { field: 'metadata.city', operator: 'eq', value: 'Oslo' },
          { field: 'id', operator: 'in', value: ['c:1'] },
        ],
      },
    );
    assert.deepEqual(
      exactFilter(
        'c',
        { must_not: [{ key: 'count', range: { gte: 1, lt: 5 } }], should: [{ key: 'ok', match: { value: true } }] },
        indexes,
      ),
      {
        must_not: [
          {
            must: [
              { field: 'metadata.count', operator: 'gte', value: 1 },
              { field: 'metadata.count', operator: 'lt', value: 5 },
            ],
          },
        ],
        should: [{ field: 'metadata.ok', operator: 'eq', value: true }],
      },
    );
    // A key without an index, a value of another type than the index's, and conditions GoDB has no operator for.
    assert.equal(exactFilter('c', { must: [{ key: 'price', range: { gt: 1 } }] }, indexes), undefined);
    assert.equal(exactFilter('c', { must: [{ key: 'city', match: { value: 5 } }] }, indexes), undefined);
    assert.equal(exactFilter('c', { must: [{ key: 'city', match: { except: ['Oslo'] } }] }, indexes), undefined);
    assert.equal(
      exactFilter(
        'c',
        { min_should: { conditions: [{ key: 'city', match: { value: 'Oslo' } }], min_count: 1 } },
        indexes,
      ),
      undefined,
    );
  });
});

describe('the guards', () => {
  test('the server’s rate limit applies, answered in Qdrant’s shape', async () => {
    const server = await startTestServer({ RATE_LIMIT_RPS: '1', RATE_LIMIT_BURST: '2' });
    try {
      const statuses: number[] = [];
      let last: unknown;
      for (let i = 0; i < 4; i += 1) {
        const res = await server.app.inject({ method: 'GET', url: '/qdrant/collections' });
        statuses.push(res.statusCode);
        last = res.json();
      }
      assert.equal(statuses.at(-1), 429);
      assert.match((last as { status: { error: string } }).status.error, /rate|Too many/i);
    } finally {
      await server.close();
    }
  });
});
