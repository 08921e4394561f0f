import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Scope } from '../../engine/search/scope.js';
import { startTestServer, type TestServer } from '../../test-support/server.js';

/**
 * Issue 21, one trip: the engine's search entry points (`engine.searches`) answer the finished result — results
 * with their chunks, counts, notes, facets, route — and each use case only scopes the caller and maps it. So every
 * kind's HTTP answer is the engine's answer for the same caller, field for field (the time aside).
 */
let server: TestServer;
let admin: Awaited<ReturnType<TestServer['registerTenant']>>;

const corpus = [
  {
    id: 'bl',
    title: 'Boundary layer transition',
    content: 'Transition of the laminar boundary layer on a flat plate in supersonic flow.',
    tags: ['flow', 'laminar'],
    primary_table: 'papers',
    location: [52.52, 13.405],
    metadata: { year: 1958, author: 'ann' },
    edges: [{ target_id: 'shock', type: 'cites', weight: 1 }],
  },
  {
    id: 'shock',
    title: 'Shock waves',
    content: 'Interaction of shock waves with the boundary layer causes separation of the flow.',
    tags: ['flow', 'shock'],
    primary_table: 'papers',
    location: [52.4, 13.1],
    metadata: { year: 1970, author: 'bob' },
    edges: [{ target_id: 'wing', type: 'cites', weight: 2 }],
  },
  {
    id: 'wing',
    title: 'Delta wings',
    content: 'Lift and drag of slender delta wings at high angles of attack in supersonic flow.',
    tags: ['lift'],
    primary_table: 'papers',
    metadata: { year: 1965, author: 'ann' },
  },
  { id: 'ann', title: 'Ann', content: 'Ann studies boundary layers.', primary_table: 'authors' },
  { id: 'bob', title: 'Bob', content: 'Bob studies shock waves.', primary_table: 'authors' },
];

const scope = (extra: Partial<Scope> = {}): Scope => ({
  viewer: { tenantId: admin.tenantId, userId: admin.userId, groups: [] },
  now: Math.floor(Date.now() / 1000),
  ...extra,
});

/** An answer as a client reads it, without the time (the one field two runs do not share). */
const withoutTime = (answer: unknown): Record<string, unknown> => {
  const { time_taken: time, ...rest } = JSON.parse(JSON.stringify(answer)) as Record<string, unknown>;
  assert.equal(typeof time, 'number');
  return rest;
};

async function post(url: string, payload: object): Promise<Record<string, unknown>> {
  const res = await server.call('POST', url, admin.token, payload);
  assert.equal(res.status, 200, res.text);
  return withoutTime(res.body);
}

before(async () => {
  server = await startTestServer();
  admin = await server.registerTenant();
  const res = await server.call('POST', '/api/v1/documents/batch', admin.token, corpus);
  assert.equal(res.status, 200, res.text);
});

after(() => server.close());

describe('every search kind answers what the engine finished, mapped 1:1', () => {
  test('text, fuzzy, faceted, multi-table and autocomplete', async () => {
    const { searches } = server.engine;
    const text = await post('/api/v1/search/text', { query: 'boundary flow', query_type: 'match', limit: 2 });
    assert.equal((text.results as unknown[]).length, 2);
    assert.equal(text.total_hits, 4);
    assert.deepEqual(
      text,
      withoutTime(await searches.text(scope(), { query: 'boundary flow', type: 'match', limit: 2 })),
    );

    const wildcard = await post('/api/v1/search/text', { query: 'sup*', query_type: 'wildcard' });
    assert.deepEqual(wildcard.notes, ['sup* → supersonic']);
    assert.deepEqual(
      wildcard,
      withoutTime(await searches.text(scope(), { query: 'sup*', type: 'wildcard', limit: 10 })),
    );

    assert.deepEqual(
      await post('/api/v1/search/fuzzy', { query: 'bondary', fuzziness: 2 }),
      withoutTime(searches.fuzzy(scope(), { query: 'bondary', fuzziness: 2, prefixLength: 0, limit: 10 })),
    );
    const faceted = await post('/api/v1/search/faceted', { query: 'flow', facets: ['tags', 'metadata.author'] });
    assert.deepEqual(faceted.facets, {
      tags: [
        { value: 'flow', count: 2 },
        { value: 'laminar', count: 1 },
        { value: 'lift', count: 1 },
        { value: 'shock', count: 1 },
      ],
      'metadata.author': [
        { value: 'ann', count: 2 },
        { value: 'bob', count: 1 },
      ],
    });
    assert.deepEqual(
      faceted,
      withoutTime(await searches.faceted(scope(), { query: 'flow', facets: ['tags', 'metadata.author'], limit: 10 })),
    );
    const joins = [{ left_table: 'papers', right_table: 'authors', left_field: 'metadata.author', right_field: 'id' }];
    const multi = await post('/api/v1/search/multi-table', {
      table_names: ['papers', 'authors'],
      join_conditions: joins,
    });
    assert.equal(multi.total_hits, 3);
    assert.deepEqual(
      multi,
      withoutTime(await searches.multiTable(scope(), { tables: ['papers', 'authors'], joins, limit: 10 })),
    );
    assert.deepEqual(
      await post('/api/v1/search/autocomplete', { prefix: 'sup', field: 'content' }),
      withoutTime(searches.autocomplete(scope(), { prefix: 'sup', field: 'content', fuzziness: 0, limit: 5 })),
    );
  });

  test('vector, hybrid, geo and smart', async () => {
    const { searches } = server.engine;
    const vector = await post('/api/v1/search/vector', { query: 'supersonic flow', threshold: 0, limit: 3 });
    assert.equal((vector.notes as string[])[0], 'model use-lite-512');
    assert.deepEqual(
      vector,
      withoutTime(
        await searches.vector(scope(), {
          query: 'supersonic flow',
          method: 'cosine',
          threshold: 0,
          limit: 3,
          combineLocation: false,
        }),
      ),
    );
    const hybrid = await post('/api/v1/search/hybrid', { query: 'shock waves', fusion: 'rrf' });
    assert.equal(hybrid.ranking, 'rrf');
    assert.deepEqual(
      hybrid,
      withoutTime(
        await searches.hybrid(scope(), {
          query: 'shock waves',
          alpha: 0.3,
          limit: 10,
          fusion: 'rrf',
          useMlRanking: false,
        }),
      ),
    );
    const geo = { lat: 52.5, lon: 13.4, radiusKm: 50, field: 'location' };
    const near = await post('/api/v1/search/geo', { lat: 52.5, lon: 13.4, radius: 50 });
    assert.deepEqual(
      (near.results as { document_id: string }[]).map((r) => r.document_id),
      ['bl', 'shock'],
    );
    assert.deepEqual(near, withoutTime(searches.geo({ ...scope({ geo }), geo }, { limit: 10 })));
    const smart = await post('/api/v1/search/smart', { query: '"boundary layer"' });
    assert.equal(smart.route, 'text');
    assert.deepEqual(
      smart,
      withoutTime(
        await searches.smart(scope(), {
          query: '"boundary layer"',
          mode: 'auto',
          autoRoute: true,
          hasPoint: false,
          limit: 10,
        }),
      ),
    );
  });

  test('recommendations and graph', async () => {
    const { searches } = server.engine;
    const recommended = await post('/api/v1/search/recommendations', {
      document_id: 'bl',
      strategy: 'graph',
      edge_type: 'cites',
      graph_depth: 2,
    });
    assert.deepEqual(
      (recommended.results as { document_id: string }[]).map((r) => r.document_id),
      ['shock', 'wing'],
    );
    assert.deepEqual(
      recommended,
      withoutTime(
        searches.graphs.recommendations(scope(), {
          documentId: 'bl',
          userId: admin.userId,
          strategy: 'graph',
          weights: { content: 0.4, collaborative: 0.3, graph: 0.3 },
          minSimilarity: 0.7,
          graphDepth: 2,
          edgeType: 'cites',
          limit: 10,
          combineLocation: false,
        }),
      ),
    );
    const path = await post('/api/v1/search/graph', {
      query_type: 'shortest_path',
      start_node_id: 'bl',
      end_node_id: 'wing',
      edge_type: 'cites',
    });
    assert.deepEqual(path.path, ['bl', 'shock', 'wing']);
    assert.deepEqual(
      path,
      withoutTime(
        await searches.graphs.graph(scope(), {
          queryType: 'shortest_path',
          start: 'bl',
          end: 'wing',
          depth: 2,
          limit: 10,
          edgeType: 'cites',
          dimensions: 64,
        }),
      ),
    );
  });
});
