import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { bearer, startTestServer, type TestServer } from '../../test-support/server.js';

type Body = Record<string, unknown> & {
  nodes?: { id: string; score?: number }[];
  path?: string[];
  cost?: number;
  embeddings?: Record<string, number[]>;
  results?: { document_id: string; score: number; strategies?: Record<string, number> }[];
  error?: { code: string; message: string; field?: string };
};

let server: TestServer;
let tenant: Awaited<ReturnType<TestServer['registerTenant']>>;
/** The karate club has a tenant of its own, so centralities run on exactly its 34 members. */
let club: Awaited<ReturnType<TestServer['registerTenant']>>;

async function post(url: string, payload: unknown, token = tenant.token) {
  const res = await server.app.inject({ method: 'POST', url, headers: bearer(token), payload: payload as object });
  return { status: res.statusCode, body: res.json() as Body };
}
const glove = { model_name: 'glove-100' };

/** Zachary's karate club (1977): 34 members, 78 friendships. */
const karate: Record<number, number[]> = {
  1: [2, 3, 4, 5, 6, 7, 8, 9, 11, 12, 13, 14, 18, 20, 22, 32],
  2: [3, 4, 8, 14, 18, 20, 22, 31],
  3: [4, 8, 9, 10, 14, 28, 29, 33],
  4: [8, 13, 14],
  5: [7, 11],
  6: [7, 11, 17],
  7: [17],
  9: [31, 33, 34],
  10: [34],
  14: [34],
  15: [33, 34],
  16: [33, 34],
  19: [33, 34],
  20: [34],
  21: [33, 34],
  23: [33, 34],
  24: [26, 28, 30, 33, 34],
  25: [26, 28, 32],
  26: [32],
  27: [30, 34],
  28: [34],
  29: [32, 34],
  30: [33, 34],
  31: [33, 34],
  32: [33, 34],
  33: [34],
};

/** The club as documents with `friend` edges. */
const karateMembers = () =>
  Array.from({ length: 34 }, (_v, i) => ({
    id: `k${i + 1}`,
    title: `Member ${i + 1}`,
    content: `karate club member ${i + 1}`,
    edges: (karate[i + 1] ?? []).map((t) => ({ target_id: `k${t}`, type: 'friend', weight: 1 })),
    embedding_options: glove,
  }));

before(async () => {
  server = await startTestServer();
  tenant = await server.registerTenant();
  club = await server.registerTenant();
  const members = karateMembers();
  const res = await post('/api/v1/documents/batch', members, club.token);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  await post('/api/v1/documents/batch', members);
  // A small weighted road network with locations (A* heuristic) and a negative edge for Bellman-Ford.
  await post('/api/v1/documents/batch', [
    {
      id: 'A',
      title: 'A',
      location: [0, 0],
      edges: [
        { target_id: 'B', weight: 120 },
        { target_id: 'C', weight: 500 },
      ],
      embedding_options: glove,
    },
    { id: 'B', title: 'B', location: [0, 1], edges: [{ target_id: 'C', weight: 120 }], embedding_options: glove },
    { id: 'C', title: 'C', location: [0, 2], edges: [{ target_id: 'D', weight: 1 }], embedding_options: glove },
    { id: 'D', title: 'D', location: [0, 3], embedding_options: glove },
  ]);
});
after(async () => {
  await server.close();
});

const centralityOf = async (type: string) => {
  const res = await post(
    '/api/v1/search/graph',
    { query_type: 'centrality', centrality_type: type, edge_type: 'friend', limit: 34 },
    club.token,
  );
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return new Map((res.body.nodes ?? []).map((n) => [n.id, n.score ?? 0]));
};
const near = (a: number | undefined, b: number, tolerance = 0.0005) => Math.abs((a ?? NaN) - b) < tolerance;

describe('centralities on the karate club, against published values', () => {
  test('degree, betweenness, closeness, PageRank and eigenvector', async () => {
    const degree = await centralityOf('degree');
    assert.ok(near(degree.get('k34'), 17 / 33) && near(degree.get('k1'), 16 / 33));
    const betweenness = await centralityOf('betweenness');
    assert.ok(
      near(betweenness.get('k1'), 0.4376) && near(betweenness.get('k34'), 0.3041),
      `${betweenness.get('k1')} ${betweenness.get('k34')}`,
    );
    const closeness = await centralityOf('closeness');
    assert.ok(
      near(closeness.get('k1'), 0.569) && near(closeness.get('k34'), 0.55),
      `${closeness.get('k1')} ${closeness.get('k34')}`,
    );
    const pagerank = await centralityOf('pagerank');
    assert.ok(
      near(pagerank.get('k34'), 0.1009) && near(pagerank.get('k1'), 0.097),
      `${pagerank.get('k34')} ${pagerank.get('k1')}`,
    );
    const eigenvector = await centralityOf('eigenvector');
    assert.ok(
      near(eigenvector.get('k34'), 0.3734, 0.002) && near(eigenvector.get('k1'), 0.3555, 0.002),
      `${eigenvector.get('k34')} ${eigenvector.get('k1')}`,
    );
  });

  test('Katz and harmonic rank the two leaders first; node_ids and a neighbourhood narrow the subgraph', async () => {
    for (const type of ['katz', 'harmonic']) {
      const top = [...(await centralityOf(type))]
        .slice(0, 2)
        .map(([id]) => id)
        .sort();
      assert.deepEqual(top, ['k1', 'k34'], type);
    }
    const subset = await post('/api/v1/search/graph', {
      query_type: 'centrality',
      centrality_type: 'degree',
      edge_type: 'friend',
      node_ids: ['k1', 'k2', 'k3'],
    });
    assert.deepEqual(new Set(subset.body.nodes?.map((n) => n.id)), new Set(['k1', 'k2', 'k3']));
    assert.ok(
      (subset.body.nodes ?? []).every((n) => n.score === 1),
      'a triangle: every node has degree 1 after normalisation',
    );
    const around = await post('/api/v1/search/graph', {
      query_type: 'centrality',
      centrality_type: 'degree',
      edge_type: 'friend',
      start_node_id: 'k7',
      depth: 1,
    });
    assert.deepEqual(new Set(around.body.nodes?.map((n) => n.id)), new Set(['k7', 'k1', 'k5', 'k6', 'k17']));
  });
});

describe('paths and traversals', () => {
  test('shortest_path, bidirectional, astar and bellman_ford', async () => {
    const weighted = await post('/api/v1/search/graph', {
      query_type: 'shortest_path',
      start_node_id: 'A',
      end_node_id: 'C',
    });
    assert.deepEqual(weighted.body.path, ['A', 'B', 'C']);
    assert.equal(weighted.body.cost, 240);
    assert.equal(weighted.body.hops, 2);
    // Bidirectional finds the fewest hops; its cost is still the weight of the path it found (issue #20).
    const hops = await post('/search/graph', { query_type: 'bidirectional', start_node_id: 'A', end_node_id: 'C' });
    assert.deepEqual(hops.body.path, ['A', 'C']);
    assert.equal(hops.body.hops, 1);
    assert.ok((hops.body.cost as number) > 240, 'the direct edge weighs more than the two-hop path');
    const astar = await post('/api/v1/search/graph', { query_type: 'astar', start_node_id: 'A', end_node_id: 'D' });
    assert.deepEqual(astar.body.path, ['A', 'B', 'C', 'D']);
    assert.equal(astar.body.cost, 241);
    const bf = await post('/api/v1/search/graph', { query_type: 'bellman_ford', start_node_id: 'A', end_node_id: 'D' });
    assert.deepEqual(bf.body.path, ['A', 'B', 'C', 'D']);
    const none = await post('/api/v1/search/graph', {
      query_type: 'shortest_path',
      start_node_id: 'D',
      end_node_id: 'A',
    });
    assert.deepEqual(none.body.path, [], 'edges are directed: no way back');
  });

  test('negative weights: Bellman-Ford handles them, a negative cycle is a 400, Dijkstra refuses', async () => {
    const t = await server.registerTenant();
    await post(
      '/api/v1/documents/batch',
      [
        {
          id: 'x',
          title: 'x',
          edges: [
            { target_id: 'y', weight: 4 },
            { target_id: 'z', weight: 5 },
          ],
        },
        { id: 'y', title: 'y' },
        { id: 'z', title: 'z', edges: [{ target_id: 'y', weight: -3 }] },
      ].map((d) => ({ ...d, embedding_options: { enabled: false } })),
      t.token,
    );
    const bf = await post(
      '/api/v1/search/graph',
      { query_type: 'bellman_ford', start_node_id: 'x', end_node_id: 'y' },
      t.token,
    );
    assert.deepEqual(bf.body.path, ['x', 'z', 'y']);
    assert.equal(bf.body.cost, 2);
    const dijkstra = await post(
      '/api/v1/search/graph',
      { query_type: 'shortest_path', start_node_id: 'x', end_node_id: 'y' },
      t.token,
    );
    assert.equal(dijkstra.status, 400);
    await post(
      '/api/v1/documents',
      { id: 'y', title: 'y', edges: [{ target_id: 'z', weight: 1 }], embedding_options: { enabled: false } },
      t.token,
    );
    const cycle = await post(
      '/api/v1/search/graph',
      { query_type: 'bellman_ford', start_node_id: 'x', end_node_id: 'y' },
      t.token,
    );
    assert.equal(cycle.status, 400);
    assert.equal(cycle.body.error?.code, 'NEGATIVE_CYCLE');
  });

  test('bfs and dfs are depth-limited; the older /graph/query call works', async () => {
    const bfs = await post('/api/v1/search/graph', {
      query_type: 'bfs',
      start_node_id: 'k7',
      depth: 1,
      edge_type: 'friend',
    });
    assert.deepEqual(
      bfs.body.nodes?.map((n) => [n.id, n.score]),
      [
        ['k7', 0],
        ['k17', 1],
      ],
    );
    const dfs = await post('/api/v1/search/graph', { query_type: 'dfs', start_node_id: 'A', depth: 2 });
    assert.deepEqual(
      dfs.body.nodes?.map((n) => n.id),
      ['A', 'B', 'C'],
    );
    const legacy = await post('/graph/query', { start_node_id: 'A', depth: 3, query_type: 'bfs' });
    assert.deepEqual(
      legacy.body.nodes?.map((n) => n.id),
      ['A', 'B', 'C', 'D'],
    );
    const otherTypes = await post('/api/v1/graph/query', {
      start_node_id: 'A',
      query_type: 'bfs',
      filters: { node_types: ['person'] },
    });
    assert.deepEqual(otherTypes.body.nodes, []);
  });

  test('the specification’s validation messages', async () => {
    const type = await post('/api/v1/search/graph', { query_type: 'teleport' });
    assert.equal(type.status, 400);
    assert.equal(
      type.body.error?.message,
      'Invalid query_type. Must be one of: shortest_path, astar, bidirectional, bellman_ford, bfs, dfs, centrality, embeddings, transe_embeddings, graphsage_embeddings',
    );
    const centrality = await post('/api/v1/search/graph', { query_type: 'centrality', centrality_type: 'fame' });
    assert.equal(
      centrality.body.error?.message,
      'Invalid centrality_type. Must be one of: degree, closeness, betweenness, pagerank, eigenvector, katz, harmonic',
    );
    const depth = await post('/api/v1/search/graph', { query_type: 'bfs', start_node_id: 'A', depth: 0 });
    assert.equal(depth.body.error?.message, 'Depth must be greater than 0');
    const missing = await post('/api/v1/search/graph', {
      query_type: 'shortest_path',
      start_node_id: 'A',
      end_node_id: 'nowhere',
    });
    assert.equal(missing.status, 404);
  });
});

describe('node embeddings', () => {
  test('random-walk, TransE and GraphSAGE embeddings have the requested size and are deterministic', async () => {
    for (const type of ['embeddings', 'transe_embeddings', 'graphsage_embeddings']) {
      const body = { query_type: type, edge_type: 'friend', start_node_id: 'k1', depth: 1, dimensions: 16, limit: 50 };
      const first = await post('/api/v1/search/graph', body);
      const second = await post('/api/v1/search/graph', body);
      assert.equal(first.status, 200, JSON.stringify(first.body));
      const vectors = Object.values(first.body.embeddings ?? {});
      assert.equal(vectors.length, 17, `${type}: k1 and its 16 friends`);
      assert.ok(vectors.every((v) => v.length === 16));
      assert.deepEqual(first.body.embeddings, second.body.embeddings, `${type} is deterministic`);
    }
  });
});

describe('access control', () => {
  test('a private node is invisible to paths, traversals and centralities of other users', async () => {
    const owner = await server.addUser(tenant);
    await post(
      '/api/v1/documents',
      {
        id: 'secret-bridge',
        title: 'bridge',
        visibility: 'private',
        edges: [{ target_id: 'D', weight: 1 }],
        embedding_options: glove,
      },
      owner.token,
    );
    await post('/api/v1/documents', {
      id: 'E',
      title: 'E',
      edges: [{ target_id: 'secret-bridge', weight: 1 }],
      embedding_options: glove,
    });
    const forOwner = await post(
      '/api/v1/search/graph',
      { query_type: 'shortest_path', start_node_id: 'E', end_node_id: 'D' },
      owner.token,
    );
    assert.deepEqual(forOwner.body.path, ['E', 'secret-bridge', 'D']);
    const forOthers = await post('/api/v1/search/graph', {
      query_type: 'shortest_path',
      start_node_id: 'E',
      end_node_id: 'D',
    });
    assert.deepEqual(forOthers.body.path, []);
    const bfs = await post('/api/v1/search/graph', { query_type: 'bfs', start_node_id: 'E', depth: 3 });
    assert.deepEqual(
      bfs.body.nodes?.map((n) => n.id),
      ['E'],
    );
    const central = await post('/api/v1/search/graph', {
      query_type: 'centrality',
      centrality_type: 'degree',
      edge_type: '*',
      limit: 100,
    });
    assert.ok(!(central.body.nodes ?? []).some((n) => n.id === 'secret-bridge'));
    assert.equal(
      (await post('/api/v1/search/graph', { query_type: 'bfs', start_node_id: 'secret-bridge' })).status,
      404,
    );
  });
});

describe('recommendations', () => {
  test('collaborative, content, graph and hybrid, each saying which strategies contributed', async () => {
    const t = await server.registerTenant();
    const catalogue = [
      {
        id: 'jet-noise',
        title: 'Jet noise',
        content: 'noise radiated by turbulent jets and its reduction',
        edges: [{ target_id: 'nozzle', type: 'links_to' }],
      },
      {
        id: 'jet-noise-2',
        title: 'Jet noise reduction',
        content: 'reducing the noise of turbulent jets with chevrons',
      },
      { id: 'nozzle', title: 'Nozzle design', content: 'design of convergent divergent nozzles' },
      { id: 'heat', title: 'Heat transfer', content: 'heat transfer in laminar pipe flow' },
      { id: 'buckling', title: 'Shell buckling', content: 'buckling of thin cylindrical shells under axial load' },
    ].map((d) => ({ ...d, embedding_options: glove }));
    await post('/api/v1/documents/batch', catalogue, t.token);
    const u1 = await server.addUser(t);
    const u2 = await server.addUser(t);
    const u3 = await server.addUser(t);
    const engage = (token: string, id: string) =>
      server.app.inject({
        method: 'PATCH',
        url: `/api/v1/documents/${id}/engagement`,
        headers: bearer(token),
        payload: { clicks: 1 },
      });
    for (const u of [u1, u2, u3]) await engage(u.token, 'jet-noise');
    for (const u of [u1, u2]) await engage(u.token, 'buckling');
    await engage(u3.token, 'heat');

    const collaborative = await post(
      '/api/v1/search/recommendations',
      { document_id: 'jet-noise', strategy: 'collaborative' },
      t.token,
    );
    // heat: only u3 engaged with both, and an answer must not reveal what one person read (at least two).
    assert.deepEqual(
      collaborative.body.results?.map((r) => r.document_id),
      ['buckling'],
    );
    assert.ok(near(collaborative.body.results?.[0]?.score, 2 / Math.sqrt(6), 1e-4));
    assert.deepEqual(Object.keys(collaborative.body.results?.[0]?.strategies ?? {}), ['collaborative']);

    const content = await post(
      '/api/v1/search/recommendations',
      { document_id: 'jet-noise', strategy: 'content', min_similarity: 0.5 },
      t.token,
    );
    assert.equal(content.body.results?.[0]?.document_id, 'jet-noise-2');
    assert.ok((content.body.results ?? []).every((r) => r.score >= 0.5 && r.document_id !== 'jet-noise'));

    const graph = await post(
      '/api/v1/search/recommendations',
      { document_id: 'jet-noise', strategy: 'graph' },
      t.token,
    );
    assert.deepEqual(
      graph.body.results?.map((r) => r.document_id),
      ['nozzle'],
    );

    const hybrid = await post(
      '/api/v1/search/recommendations',
      {
        document_id: 'jet-noise',
        strategy: 'hybrid',
        content_weight: 0.4,
        collab_weight: 0.3,
        graph_weight: 0.3,
        limit: 5,
      },
      t.token,
    );
    const ids = hybrid.body.results?.map((r) => r.document_id) ?? [];
    assert.ok(
      ids.includes('nozzle') && ids.includes('buckling') && ids.includes('jet-noise-2') && !ids.includes('jet-noise'),
    );
    const nozzle = hybrid.body.results?.find((r) => r.document_id === 'nozzle');
    assert.ok(nozzle?.strategies?.graph !== undefined);

    const weights = await post(
      '/api/v1/search/recommendations',
      { document_id: 'jet-noise', strategy: 'hybrid', content_weight: 0.5, collab_weight: 0.3, graph_weight: 0.3 },
      t.token,
    );
    assert.equal(weights.status, 400);
    assert.equal(weights.body.error?.message, 'Weights must sum to 1.0 for hybrid strategy');

    // For a user: learned from what they engaged with, which is excluded.
    const forUser = await post('/api/v1/search/recommendations', { strategy: 'collaborative' }, u3.token);
    const mine = forUser.body.results?.map((r) => r.document_id) ?? [];
    assert.ok(!mine.includes('jet-noise') && !mine.includes('heat'));
    assert.deepEqual(mine, ['buckling']);
  });
});

describe('budget limits', () => {
  let small: TestServer;
  let owner: Awaited<ReturnType<TestServer['registerTenant']>>;
  const call = async (url: string, payload: object) => {
    const res = await small.app.inject({ method: 'POST', url, headers: bearer(owner.token), payload });
    return { status: res.statusCode, body: res.json() as Body };
  };
  before(async () => {
    // 34 members + 78 friendships = 112 elements: inside a budget of 150; centralities on at most 10 nodes.
    small = await startTestServer({ GRAPH_MAX_ELEMENTS: '150', GRAPH_MAX_SUBGRAPH_NODES: '10' });
    owner = await small.registerTenant();
    const members = karateMembers();
    assert.equal((await call('/api/v1/documents/batch', members)).status, 200);
  });
  after(() => small.close());

  test('a centrality over more nodes than GRAPH_MAX_SUBGRAPH_NODES stops with a clear 400; a narrower one runs', async () => {
    const whole = await call('/api/v1/search/graph', {
      query_type: 'centrality',
      centrality_type: 'betweenness',
      edge_type: 'friend',
    });
    assert.equal(whole.status, 400);
    assert.equal(whole.body.error?.code, 'GRAPH_BUDGET_EXCEEDED');
    assert.match(whole.body.error?.message ?? '', /more than 10 nodes/);

    const wideNeighbourhood = await call('/api/v1/search/graph', {
      query_type: 'centrality',
      centrality_type: 'degree',
      start_node_id: 'k34',
      edge_type: 'friend',
      depth: 1,
    });
    assert.equal(wideNeighbourhood.status, 400, 'k34 has 17 friends');

    const narrow = await call('/api/v1/search/graph', {
      query_type: 'centrality',
      centrality_type: 'degree',
      start_node_id: 'k7',
      edge_type: 'friend',
      depth: 1,
    });
    assert.equal(narrow.status, 200, JSON.stringify(narrow.body));
    assert.deepEqual(narrow.body.nodes?.map((n) => n.id).sort(), ['k1', 'k17', 'k5', 'k6', 'k7']);
  });

  test('a graph larger than GRAPH_MAX_ELEMENTS stops paths and graph recommendations with a 400', async () => {
    const path = { query_type: 'shortest_path', start_node_id: 'k17', end_node_id: 'k26', edge_type: 'friend' };
    assert.equal((await call('/api/v1/search/graph', path)).status, 200);

    const extra = Array.from({ length: 40 }, (_v, i) => ({ id: `x${i}`, title: `Extra ${i}`, content: 'extra' }));
    assert.equal((await call('/api/v1/documents/batch', extra)).status, 200);

    const tooBig = await call('/api/v1/search/graph', path);
    assert.equal(tooBig.status, 400);
    assert.equal(tooBig.body.error?.code, 'GRAPH_BUDGET_EXCEEDED');
    assert.match(tooBig.body.error?.message ?? '', /more than 150 nodes and edges/);

    const recommendation = await call('/api/v1/search/recommendations', {
      document_id: 'k1',
      strategy: 'graph',
      edge_type: 'friend',
    });
    assert.equal(recommendation.status, 400);
    assert.equal(recommendation.body.error?.code, 'GRAPH_BUDGET_EXCEEDED');

    // The server is not stalled: other searches still answer.
    assert.equal((await call('/api/v1/search/text', { query: 'karate' })).status, 200);
  });
});
