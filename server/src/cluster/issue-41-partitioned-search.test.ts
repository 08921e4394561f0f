import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { ClusterView } from '@godb/contract';
import { documentShard } from './partition/document-shard.js';
import { collectionId } from './partition/placement-records.js';
import type { TestServer } from '../test-support/server.js';
import { until } from '../test-support/until.js';
import { call, startPartitionedPair, writeBoth, type PartitionedPair } from '../test-support/partitioned-pair.js';

/**
 * Issue #41, the searches of a partitioned collection beyond vector search (decision 0076), on a real five-node
 * cluster (three nats-server processes), `shards: 6, replication_factor: 3`, against one embedded node holding the
 * same documents: text search ranks with the collection's statistics summed over its shards (dfs), so the ids,
 * order and scores are the embedded node's through every node.
 */
const common = ['shock', 'wave', 'boundary', 'layer', 'turbulent', 'flow', 'heat', 'transfer', 'laminar', 'jet'];
/** A vocabulary whose first words are common and the rest rare (a skewed draw), so idf differs between words. */
const words = [...common, ...Array.from({ length: 70 }, (_, i) => `term${i}`)];
/** Words of document i: a length of its own (5 + i / 2 words, so few tie), drawn by a small LCG seeded by i. */
const textOf = (i: number) => {
  let x = (i * 7919 + 13) % 2147483647;
  const out: string[] = [];
  for (let k = 0; k < 5 + Math.floor(i / 2); k += 1) {
    x = (x * 48271) % 2147483647;
    const u = x / 2147483647;
    out.push(words[Math.floor(words.length * u * u * u)]!);
  }
  return out.join(' ');
};
const papers = Array.from({ length: 60 }, (_, i) => ({
  id: `paper-${i}`,
  title: `Paper ${i}`,
  content: textOf(i),
  primary_table: 'papers',
  metadata: { year: 2000 + (i % 5), kind: ['note', 'paper', 'report'][i % 3]! },
  tags: [['alpha', 'beta'], ['alpine'], ['beta', 'gamma'], ['alps', 'alpha']][i % 4]!,
  // A private document is scored but counted in no statistic: the shards must agree on that too.
  ...(i % 9 === 4 && { visibility: 'private' }),
  // The graph's edges cross shards and collections: a graph query gathers it whole (decision 0090).
  edges: [
    { target_id: `paper-${(i * 7 + 3) % 60}`, type: 'cites', weight: 1 + (i % 4) },
    { target_id: `paper-${(i + 1) % 60}`, type: 'cites', weight: 5 },
    ...(i % 3 === 0 ? [{ target_id: `place-${i % 48}`, type: 'near' }] : []),
  ],
}));
/**
 * A collection that is not partitioned (on every node): its text counts in the tenant's statistics. A word of its
 * own keeps each note's score apart from the paper with the same words (equal scores are ordered by id across
 * nodes, by write order on one).
 */
const notes = Array.from({ length: 8 }, (_, i) => ({
  id: `note-${i}`,
  title: `Note ${i}`,
  // "constructor" is a key of every JavaScript object: statistics keyed by term must not read Object's.
  content: `${textOf(i + 3)} memo${i}${i % 3 === 0 ? ' constructor' : ''}`,
  primary_table: 'notes',
  edges: [{ target_id: `paper-${i * 5}`, type: 'cites', weight: 2 }],
}));

/** A collection with its own vector and a location, for hybrid and geo search (tie-free: no two alike). */
const places = Array.from({ length: 48 }, (_, i) => ({
  id: `place-${i}`,
  title: `Place ${i}`,
  content: textOf(i + 11),
  primary_table: 'places',
  vectors: { v: [Math.sin(i), Math.cos(i * 0.7), Math.sin(i * 1.3 + 1), 0.5 + (i % 7) / 10] },
  location: [48 + ((i * 37) % 97) / 500, 2 + ((i * 53) % 89) / 400],
  ...(i % 9 === 4 && { visibility: 'private' }),
}));

type Hit = { document_id: string; score: number };

describe('searches of a partitioned collection in a five-node cluster, 6 shards × 3 replicas (issue #41)', () => {
  let pair: PartitionedPair;
  before(async () => {
    pair = await startPartitionedPair('psearch', {}, ['a', 'b', 'c', 'd', 'e']);
    // Papers and notes are embedded by the model (the searches by a query's embedding, content recommendations).
    const embedded = { text: { model: 'use-lite-512' } };
    await writeBoth(pair, { name: 'papers', vectors: embedded }, { shards: 6, replication_factor: 3 }, papers, 3);
    await writeBoth(pair, { name: 'notes', vectors: embedded }, {}, notes, 5);
    await writeBoth(
      pair,
      // Its own analysis: hybrid ranks with it, faceted search does not (English as given), in both rounds alike.
      {
        name: 'places',
        vectors: { v: { dimensions: 4 } },
        analysis: { stop_words: ['term10'], synonyms: [['term20', 'term30']] },
      },
      { shards: 6, replication_factor: 3 },
      places,
      3,
    );
  });
  after(async () => {
    await pair?.close();
  });

  /**
   * Asks every node of the cluster and the embedded node; every node answers the embedded node's ranking (and, with
   * `whole`, the embedded node's answer but its time; with `'but total_hits'`, but that too: a merged vector search
   * counts the union of the shards' top-k, decision 0076).
   */
  const sameAsOneNode = async (url: string, query: object, whole: boolean | 'but total_hits' = false) => {
    const reference = await call(pair.single, 'POST', url, pair.alone.token, query);
    assert.equal(reference.status, 200, reference.raw);
    const expected = reference.body.results as Hit[];
    for (const node of pair.nodes) {
      const res = await call(node, 'POST', url, pair.tenant.token, query);
      assert.equal(res.status, 200, res.raw);
      const hits = res.body.results as Hit[];
      if (whole) {
        const { time_taken: _t, ...got } = res.body;
        const { time_taken: _r, ...want } = reference.body;
        if (whole === 'but total_hits') {
          delete got.total_hits;
          delete want.total_hits;
        }
        assert.deepEqual(got, want, `through ${pair.cluster.nameOf(node)}: ${JSON.stringify(query)}`);
      }
      assert.deepEqual(
        hits.map((h) => h.document_id),
        expected.map((h) => h.document_id),
        `through ${pair.cluster.nameOf(node)}: ${JSON.stringify(query)}`,
      );
      hits.forEach((h, i) =>
        assert.ok(Math.abs(h.score - expected[i]!.score) < 1e-6, `${h.score} vs ${expected[i]!.score}`),
      );
    }
    return expected;
  };

  test('text search (match and phrase) answers the ids, order and scores of one node holding everything', async () => {
    for (const query of ['term10', 'term15 term30 term40', 'laminar term12 term25 term50']) {
      // The whole answer: its total too (each node counts the shards asked of it, the parts are summed).
      const expected = await sameAsOneNode(
        '/api/v1/search/text',
        { query, query_type: 'match', primary_table: 'papers', limit: 10 },
        true,
      );
      assert.ok(expected.length >= 5, `${query}: ${expected.length} hits`);
    }
    const phrase = await sameAsOneNode('/api/v1/search/text', {
      query: 'shock wave',
      query_type: 'phrase',
      primary_table: 'papers',
      limit: 5,
    });
    assert.ok(phrase.length > 0);
  });

  test('wildcard search expands over every shard as one node does: expansions, ids, order and scores', async () => {
    for (const query of ['term1*', 'lam* sho*', 'te?m2* flow', 'term6*']) {
      // The whole answer: the expansions noted (chosen from every shard's vocabulary), the total summed.
      const expected = await sameAsOneNode(
        '/api/v1/search/text',
        { query, query_type: 'wildcard', primary_table: 'papers', limit: 10 },
        true,
      );
      assert.ok(expected.length >= 3, `${query}: ${expected.length} hits`);
    }
    // The whole tenant, and a pattern no word matches (no hits, the pattern noted).
    await sameAsOneNode('/api/v1/search/text', { query: 'memo* term1*', query_type: 'wildcard', limit: 10 }, true);
    for (const body of [
      { query: 'cons* memo*', query_type: 'wildcard', limit: 10 },
      { query: 'constructor', query_type: 'match', limit: 10 },
    ]) {
      const found = await sameAsOneNode('/api/v1/search/text', body, true);
      assert.ok(found.length >= 2 && found.every((h) => Number.isFinite(h.score)), JSON.stringify(found));
    }
    for (const body of [
      { query: 'zzz* term1', query_type: 'wildcard', primary_table: 'papers', explain: true },
      { query: '*', query_type: 'wildcard', primary_table: 'papers' },
    ]) {
      const none = await sameAsOneNode('/api/v1/search/text', body, true);
      assert.equal(none.length, 0);
    }
    // A pattern too long: one node's 400, before any shard is asked.
    const long = { query: `zzz* ${'a'.repeat(70)}*`, query_type: 'wildcard', primary_table: 'papers' };
    const alone = await call(pair.single, 'POST', '/api/v1/search/text', pair.alone.token, long);
    const there = await call(pair.nodes[3]!, 'POST', '/api/v1/search/text', pair.tenant.token, long);
    assert.deepEqual([alone.status, there.status], [400, 400], there.raw);
  });

  test('fuzzy search answers one node’s expansions (noted), ids, order and scores', async () => {
    for (const [query, fuzziness] of [
      ['trm15 lamnar', 2],
      ['term1', 1],
      ['laminr term3', 1],
    ] as const) {
      const expected = await sameAsOneNode(
        '/api/v1/search/fuzzy',
        { query, fuzziness, prefix_length: 0, primary_table: 'papers', limit: 10 },
        true,
      );
      assert.ok(expected.length >= 3, `${query}: ${expected.length} hits`);
    }
  });

  test('text, geo, count and scroll without primary_table read the whole tenant as one node', async () => {
    for (const query of ['term10', 'laminar term12 term25']) {
      const expected = await sameAsOneNode('/api/v1/search/text', { query, query_type: 'match', limit: 15 }, true);
      assert.ok(expected.length >= 5, `${query}: ${expected.length} hits`);
    }
    await sameAsOneNode('/api/v1/search/geo', { lat: 48.1, lon: 2.1, radius: 20, limit: 12 }, true);
    const filter = [{ field: 'metadata.year', operator: 'lte', value: 2002 }];
    const reference = await call(pair.single, 'POST', '/api/v1/documents/count', pair.alone.token, {});
    const filtered = await call(pair.single, 'POST', '/api/v1/documents/count', pair.alone.token, { filter });
    assert.equal(reference.body.count, papers.length + notes.length + places.length);
    const scrolled = async (node: TestServer, token: string) => {
      const ids: string[] = [];
      let cursor: string | undefined;
      do {
        const res = await call(node, 'POST', '/api/v1/documents/scroll', token, {
          limit: 7,
          ...(cursor && { cursor }),
        });
        assert.equal(res.status, 200, res.raw);
        ids.push(...(res.body.documents as { id: string }[]).map((doc) => doc.id));
        cursor = res.body.next_cursor as string | undefined;
      } while (cursor !== undefined);
      return ids;
    };
    const all = await scrolled(pair.single, pair.alone.token);
    for (const node of pair.nodes) {
      const count = await call(node, 'POST', '/api/v1/documents/count', pair.tenant.token, {});
      assert.equal(count.body.count, reference.body.count, count.raw);
      const some = await call(node, 'POST', '/api/v1/documents/count', pair.tenant.token, { filter });
      assert.equal(some.body.count, filtered.body.count, some.raw);
      assert.deepEqual(await scrolled(node, pair.tenant.token), all, `scroll through ${pair.cluster.nameOf(node)}`);
    }
  });

  test('autocomplete reads the whole tenant: words, titles and tags complete as on one node', async () => {
    const asked = [
      { prefix: 'ter', field: 'content', limit: 8 },
      { prefix: 'la', field: 'content', limit: 5 },
      { prefix: 'trm1', field: 'content', fuzziness: 1, limit: 10 },
      { prefix: 'paper 1', field: 'title', limit: 10 },
      { prefix: 'nte', field: 'title', fuzziness: 1, limit: 10 },
      { prefix: 'alp', field: 'tags', limit: 5 },
    ];
    for (const body of asked) {
      const reference = await call(pair.single, 'POST', '/api/v1/search/autocomplete', pair.alone.token, body);
      assert.equal(reference.status, 200, reference.raw);
      const expected = reference.body.suggestions as { text: string }[];
      assert.ok(expected.length >= 2, `${JSON.stringify(body)}: ${reference.raw}`);
      for (const node of pair.nodes) {
        const res = await call(node, 'POST', '/api/v1/search/autocomplete', pair.tenant.token, body);
        assert.equal(res.status, 200, res.raw);
        assert.deepEqual(
          res.body.suggestions,
          expected,
          `through ${pair.cluster.nameOf(node)}: ${JSON.stringify(body)}`,
        );
      }
    }
  });
  test('hybrid search answers one node’s fusion: ids, order, scores, chunks and highlights', async () => {
    const vector = [0.3, -0.2, 0.8, 0.6];
    for (const fusion of ['dbsf_relative', 'rrf', 'weighted', 'dbsf']) {
      for (const [query, alpha] of [
        ['term10 term20', 0.3],
        ['laminar term12 term25', 0.7],
      ] as const) {
        const expected = await sameAsOneNode(
          '/api/v1/search/hybrid',
          { query, vector, alpha, fusion, primary_table: 'places', limit: 8, highlight: true },
          true,
        );
        assert.ok(expected.length >= 5, `${fusion} ${query}: ${expected.length} hits`);
      }
    }
    // Only the vector side (no text), and a limit past what the text side finds.
    await sameAsOneNode('/api/v1/search/hybrid', { vector, primary_table: 'places', limit: 20 }, true);
    // The ranking model learns from the engagement each node records: not fanned out.
    const ml = await call(pair.nodes[2]!, 'POST', '/api/v1/search/hybrid', pair.tenant.token, {
      query: 'term10',
      vector,
      primary_table: 'places',
      use_ml_ranking: true,
    });
    assert.equal(ml.status, 501, ml.raw);
    assert.match(ml.raw, /use_ml_ranking on the partitioned collection places/);
  });

  test('faceted search answers one node’s counts and matches', async () => {
    for (const query of ['term10 term20', 'shock laminar']) {
      const expected = await sameAsOneNode(
        '/api/v1/search/faceted',
        { query, facets: ['metadata.year', 'metadata.kind', 'visibility'], primary_table: 'papers', limit: 7 },
        true,
      );
      assert.ok(expected.length >= 3, `${query}: ${expected.length}`);
    }
    await sameAsOneNode(
      '/api/v1/search/faceted',
      { query: 'term10 term20 laminar', facets: ['visibility'], primary_table: 'places', limit: 7 },
      true,
    );
    // Without a query: every readable document listed newest first; the counts are one node's.
    const body = { facets: ['metadata.year', 'metadata.kind'], primary_table: 'papers', limit: 100 };
    const reference = await call(pair.single, 'POST', '/api/v1/search/faceted', pair.alone.token, body);
    assert.equal(reference.status, 200, reference.raw);
    for (const node of pair.nodes) {
      const res = await call(node, 'POST', '/api/v1/search/faceted', pair.tenant.token, body);
      assert.equal(res.status, 200, res.raw);
      assert.deepEqual(res.body.facets, reference.body.facets);
      assert.equal(res.body.total_hits, reference.body.total_hits);
      const ids = (answer: Record<string, unknown>) => (answer.results as Hit[]).map((h) => h.document_id).sort();
      assert.deepEqual(ids(res.body), ids(reference.body));
    }
  });

  test('smart search routes as one node does and answers what that route answers there', async () => {
    const asked = [
      { query: 'term10 term20', mode: 'text' },
      { query: '"shock wave"', mode: 'text' },
      { query: 'laminar flow over a heated wing', mode: 'semantic' },
      { query: 'term12 laminar term25', mode: 'auto' },
      { query: 'why does the boundary layer separate', mode: 'auto' },
      { query: '', mode: 'geo', lat: 48.1, lon: 2.1, radius: 20 },
      { query: 'term10 term12 term20 term25', mode: 'text', lat: 48.1, lon: 2.1, radius: 15 },
    ];
    // A semantic route embeds the query on every node asked: its first use loads the default model there, which
    // on a loaded machine may take longer than a fan-out waits (503 SHARD_UNAVAILABLE). Warm each node first.
    for (const node of pair.cluster.nodes)
      await until(
        async () =>
          (
            await call(node, 'POST', '/api/v1/search/smart', pair.tenant.token, {
              query: 'laminar flow over a heated wing',
              mode: 'semantic',
              primary_table: 'places',
            })
          ).status === 200,
        `a semantic search through ${pair.cluster.nameOf(node)}`,
      );
    const routes = new Set<unknown>();
    for (const body of asked) {
      const reference = await call(pair.single, 'POST', '/api/v1/search/smart', pair.alone.token, {
        ...body,
        primary_table: 'places',
        limit: 6,
      });
      assert.equal(reference.status, 200, reference.raw);
      routes.add(reference.body.route);
      // Text, geo and hybrid count as one node does; a vector search's parts count their candidates.
      const merged = reference.body.route === 'semantic';
      await sameAsOneNode(
        '/api/v1/search/smart',
        { ...body, primary_table: 'places', limit: 6 },
        merged ? 'but total_hits' : true,
      );
    }
    assert.deepEqual([...routes].sort(), ['geo', 'hybrid', 'semantic', 'text']);
  });

  test('geo search answers the documents nearest first, as one node does', async () => {
    for (const [radius, limit] of [
      [5, 10],
      [30, 100],
    ] as const) {
      const expected = await sameAsOneNode(
        '/api/v1/search/geo',
        { lat: 48.1, lon: 2.1, radius, limit, primary_table: 'places' },
        true,
      );
      assert.ok(expected.length >= 3, `radius ${radius}: ${expected.length}`);
    }
  });

  test('count and scroll with a filter answer what one node holding everything answers', async () => {
    const filter = [{ field: 'metadata.year', operator: 'gte', value: 2002 }];
    const post = (node: TestServer, token: string, url: string, payload: object) =>
      call(node, 'POST', url, token, payload);
    const reference = await post(pair.single, pair.alone.token, '/api/v1/documents/count', {
      primary_table: 'papers',
      filter,
    });
    assert.equal(reference.status, 200, reference.raw);
    assert.equal(reference.body.count, 36);
    for (const node of pair.nodes) {
      const res = await post(node, pair.tenant.token, '/api/v1/documents/count', { primary_table: 'papers', filter });
      assert.equal(res.status, 200, res.raw);
      assert.equal(res.body.count, reference.body.count);
    }
    /** Every page's ids, cursor to cursor, pages of 7. */
    const scroll = async (node: TestServer, token: string) => {
      const pages: string[][] = [];
      let cursor: string | undefined;
      do {
        const res = await post(node, token, '/api/v1/documents/scroll', {
          primary_table: 'papers',
          filter,
          limit: 7,
          ...(cursor && { cursor }),
        });
        assert.equal(res.status, 200, res.raw);
        pages.push((res.body.documents as { id: string }[]).map((d) => d.id));
        cursor = res.body.next_cursor as string | undefined;
      } while (cursor !== undefined && pages.length < 20);
      return pages;
    };
    const expected = await scroll(pair.single, pair.alone.token);
    assert.equal(expected.flat().length, 36);
    for (const node of pair.nodes) assert.deepEqual(await scroll(node, pair.tenant.token), expected);
  });

  test('delete by filter deletes the matching documents of every shard, through the log', async () => {
    const filter = [{ field: 'metadata.year', operator: 'eq', value: 2004 }];
    const body = { primary_table: 'papers', filter };
    const reference = await call(pair.single, 'POST', '/api/v1/documents/delete', pair.alone.token, body);
    assert.equal(reference.status, 200, reference.raw);
    const res = await call(pair.nodes[2]!, 'POST', '/api/v1/documents/delete', pair.tenant.token, body);
    assert.equal(res.status, 200, res.raw);
    assert.deepEqual([res.body.deleted, res.body.skipped], [reference.body.deleted, reference.body.skipped]);
    assert.equal(res.body.deleted, 12);
    // Deleted on every holder: no node counts one, and each holds its share of the rest three times over.
    for (const node of pair.nodes) {
      const left = await call(node, 'POST', '/api/v1/documents/count', pair.tenant.token, body);
      assert.equal(left.body.count, 0, left.raw);
    }
    const all = await call(pair.nodes[0]!, 'POST', '/api/v1/documents/count', pair.tenant.token, {
      primary_table: 'papers',
    });
    assert.equal(all.body.count, 48);
    let held: number[] = [];
    await until(
      async () => {
        held = await Promise.all(
          pair.nodes.map(
            async (n) =>
              (await call(n, 'GET', '/api/v1/collections/papers', pair.tenant.token)).body.documents as number,
          ),
        );
        return held.reduce((x, y) => x + y, 0) === 48 * 3;
      },
      () => `every holder applied the deletes: ${held.join(', ')}`,
    );
  });

  // Before the test below, which patches and deletes a paper on the cluster only.
  test('vector, hybrid, smart, faceted and fuzzy searches of the whole tenant answer as one node', async () => {
    // Without primary_table: the tenant's model vectors (papers and places, partitioned, and the replicated notes).
    for (const query of ['laminar flow over a heated wing', 'term10 term20 shock']) {
      const expected = await sameAsOneNode('/api/v1/search/vector', { query, limit: 12 }, 'but total_hits');
      assert.equal(expected.length, 12, `${query}: ${expected.length} hits`);
    }
    for (const fusion of ['rrf', 'dbsf_relative', 'weighted']) {
      const expected = await sameAsOneNode(
        '/api/v1/search/hybrid',
        { query: 'term10 term20 laminar', fusion, limit: 10, highlight: true },
        true,
      );
      const tables = new Set(expected.map((h) => h.document_id.split('-')[0]));
      assert.ok(tables.size >= 2, `hits from several collections: ${[...tables].join(', ')}`);
    }
    for (const body of [
      { query: 'why does the boundary layer separate', mode: 'auto' },
      { query: 'term12 laminar term25', mode: 'auto' },
      { query: 'laminar flow', mode: 'semantic' },
    ]) {
      // Routed as one node routes it, then fanned out as that kind is (a semantic route's parts count candidates).
      await sameAsOneNode('/api/v1/search/smart', { ...body, limit: 6 }, 'but total_hits');
    }
    // Facets counted once per document over every collection: each part counts the shards asked of it, or the rest.
    for (const query of ['term10 term20', 'shock laminar memo3']) {
      const expected = await sameAsOneNode(
        '/api/v1/search/faceted',
        { query, facets: ['metadata.year', 'visibility', 'tags'], limit: 9 },
        true,
      );
      assert.ok(expected.length >= 5, `${query}: ${expected.length} hits`);
    }
    const listing = { facets: ['metadata.kind', 'visibility'], limit: 200 };
    const reference = await call(pair.single, 'POST', '/api/v1/search/faceted', pair.alone.token, listing);
    assert.equal(reference.status, 200, reference.raw);
    for (const node of pair.nodes) {
      const res = await call(node, 'POST', '/api/v1/search/faceted', pair.tenant.token, listing);
      assert.equal(res.status, 200, res.raw);
      assert.deepEqual([res.body.facets, res.body.total_hits], [reference.body.facets, reference.body.total_hits]);
      const ids = (answer: Record<string, unknown>) => (answer.results as Hit[]).map((h) => h.document_id).sort();
      assert.deepEqual(ids(res.body), ids(reference.body));
    }
    // Expansions from every collection's vocabulary, chosen and ranked as one node does.
    for (const query of ['lamnar shok', 'memo3 trm12']) {
      const expected = await sameAsOneNode('/api/v1/search/fuzzy', { query, fuzziness: 1, limit: 10 }, true);
      assert.ok(expected.length >= 5, `${query}: ${expected.length} hits`);
    }
  });

  test('graph queries of the whole tenant gather its graph and answer as one node', async () => {
    // Papers of 2004 were deleted above (by filter): the paths run between documents that remain.
    const asked: [string, object][] = [
      [
        '/api/v1/search/graph',
        { query_type: 'shortest_path', start_node_id: 'note-1', end_node_id: 'paper-28', edge_type: 'cites' },
      ],
      [
        '/api/v1/search/graph',
        { query_type: 'bellman_ford', start_node_id: 'note-2', end_node_id: 'paper-2', edge_type: '*' },
      ],
      ['/api/v1/search/graph', { query_type: 'bfs', start_node_id: 'paper-0', depth: 3, limit: 25, edge_type: '*' }],
      ['/api/v1/search/graph', { query_type: 'dfs', start_node_id: 'note-2', depth: 4, limit: 15, edge_type: 'cites' }],
      ['/api/v1/search/graph', { query_type: 'centrality', centrality_type: 'pagerank', limit: 10, edge_type: '*' }],
      [
        '/api/v1/search/graph',
        { query_type: 'centrality', centrality_type: 'betweenness', start_node_id: 'paper-5', depth: 2, limit: 8 },
      ],
      [
        '/api/v1/search/graph',
        { query_type: 'graphsage_embeddings', start_node_id: 'paper-6', depth: 1, limit: 5, dimensions: 8 },
      ],
      ['/api/v1/search/graph', { query_type: 'embeddings', node_ids: ['paper-3', 'place-3', 'note-4'], dimensions: 6 }],
      // Within a radius: the places near the point and what links them.
      [
        '/api/v1/search/graph',
        { query_type: 'centrality', centrality_type: 'degree', lat: 48.1, lon: 2.1, radius: 20 },
      ],
      ['/api/v1/graph/query', { query_type: 'bfs', start_node_id: 'paper-7', depth: 2, limit: 30 }],
    ];
    for (const [url, body] of asked) {
      const reference = await call(pair.single, 'POST', url, pair.alone.token, body);
      assert.equal(reference.status, 200, reference.raw);
      const { time_taken: _r, ...want } = reference.body;
      assert.ok((want.nodes as unknown[]).length > 0, `${JSON.stringify(body)}: nodes`);
      for (const node of pair.nodes) {
        const res = await call(node, 'POST', url, pair.tenant.token, body);
        assert.equal(res.status, 200, res.raw);
        const { time_taken: _t, ...got } = res.body;
        assert.deepEqual(got, want, `through ${pair.cluster.nameOf(node)}: ${JSON.stringify(body)}`);
      }
    }
    // A start node that is in no collection, and a bad query type: the same errors as one node answers.
    for (const body of [
      { query_type: 'bfs', start_node_id: 'paper-999', depth: 1 },
      { query_type: 'walk', start_node_id: 'paper-1', depth: 1 },
    ]) {
      const alone = await call(pair.single, 'POST', '/api/v1/search/graph', pair.alone.token, body);
      assert.ok(alone.status === 404 || alone.status === 400, alone.raw);
      const refused = await call(pair.nodes[1]!, 'POST', '/api/v1/search/graph', pair.tenant.token, body);
      const error = (body: Record<string, unknown>) => ({ ...(body.error as object), request_id: undefined });
      assert.deepEqual([refused.status, error(refused.body)], [alone.status, error(alone.body)]);
    }
  });

  test('multi-table search over partitioned and other collections answers as one node', async () => {
    // Ranked over every shard with the summed statistics, ties in table_names' order: the whole answer.
    for (const body of [
      { table_names: ['notes', 'papers'], query: 'term10 laminar', limit: 10 },
      { table_names: ['papers', 'places', 'notes'], query: 'term12 term25 shock', limit: 12 },
    ]) {
      const expected = await sameAsOneNode('/api/v1/search/multi-table', body, true);
      assert.ok(expected.length >= 5, `${JSON.stringify(body)}: ${expected.length} hits`);
    }
    // A partitioned collection as the joins' left table: each of its documents joined where it is held.
    const joined = {
      table_names: ['papers', 'notes'],
      query: 'term10',
      join_conditions: [
        { left_table: 'papers', left_field: 'title', operator: 'ne', right_table: 'notes', right_field: 'title' },
      ],
      limit: 5,
    };
    const withPartners = await sameAsOneNode('/api/v1/search/multi-table', joined, true);
    assert.ok(withPartners.length > 0);
    // Without a query: every document of the tables (scored 1), counted as one node counts them.
    const listing = { table_names: ['places', 'notes'], limit: 100 };
    const reference = await call(pair.single, 'POST', '/api/v1/search/multi-table', pair.alone.token, listing);
    assert.equal(reference.status, 200, reference.raw);
    const ids = (answer: Record<string, unknown>) => (answer.results as Hit[]).map((h) => h.document_id).sort();
    for (const node of pair.nodes) {
      const res = await call(node, 'POST', '/api/v1/search/multi-table', pair.tenant.token, listing);
      assert.equal(res.status, 200, res.raw);
      assert.equal(res.body.total_hits, reference.body.total_hits);
      assert.deepEqual(ids(res.body), ids(reference.body));
      // Places first (table_names' order), then notes.
      const tables = (res.body.results as { table: string }[]).map((r) => r.table);
      assert.deepEqual(
        tables,
        [...tables].sort((a, b) => (a === b ? 0 : a === 'places' ? -1 : 1)),
      );
    }
  });

  test('recommendations over partitioned collections answer as one node', async () => {
    // Engagement recorded through the cluster and on the embedded node alike: the caller's own, which seeds
    // recommendations without a document and is excluded from them.
    for (const id of ['paper-3', 'place-7', 'note-2']) {
      const clicks = { clicks: 1 };
      const there = await call(
        pair.nodes[1]!,
        'PATCH',
        `/api/v1/documents/${id}/engagement`,
        pair.tenant.token,
        clicks,
      );
      assert.equal(there.status, 200, there.raw);
      const here = await call(pair.single, 'PATCH', `/api/v1/documents/${id}/engagement`, pair.alone.token, clicks);
      assert.equal(here.status, 200, here.raw);
    }
    for (const body of [
      { document_id: 'paper-1', strategy: 'content', min_similarity: 0.1, limit: 10 },
      { document_id: 'note-3', strategy: 'graph', edge_type: 'cites', graph_depth: 3, limit: 10 },
      { strategy: 'content', min_similarity: 0, limit: 12 },
      {
        document_id: 'paper-6',
        strategy: 'hybrid',
        content_weight: 0.5,
        collab_weight: 0.2,
        graph_weight: 0.3,
        edge_type: 'cites',
        limit: 10,
      },
      { document_id: 'paper-7', strategy: 'content', min_similarity: 0.1, primary_table: 'papers', limit: 8 },
      { primary_table: 'places', vector_name: 'v', vector: [0.3, -0.2, 0.8, 0.6], min_similarity: 0, limit: 9 },
      { document_id: 'place-2', primary_table: 'places', vector_name: 'v', lat: 48.1, lon: 2.1, radius: 30 },
    ]) {
      const expected = await sameAsOneNode('/api/v1/search/recommendations', body, true);
      assert.ok(expected.length >= 3, `${JSON.stringify(body)}: ${expected.length} results`);
    }
    // Co-engagement by three other people, written through different nodes (each event on its document's shard).
    const engagedBy: Record<string, string[]> = {
      'paper-1': ['u1', 'u2', 'u3'],
      'paper-10': ['u1', 'u2'],
      'paper-20': ['u1', 'u2', 'u3'],
      'place-5': ['u1', 'u3'],
      'note-4': ['u2', 'u3'],
      'paper-11': ['u3'],
    };
    const users = { there: new Map<string, string>(), here: new Map<string, string>() };
    for (const name of ['u1', 'u2', 'u3']) {
      users.there.set(name, (await pair.nodes[0]!.addUser(pair.tenant)).token);
      users.here.set(name, (await pair.single.addUser(pair.alone)).token);
    }
    let turn = 0;
    for (const [id, names] of Object.entries(engagedBy))
      for (const name of names) {
        const url = `/api/v1/documents/${id}/engagement`;
        const node = pair.nodes[(turn += 1) % pair.nodes.length]!;
        const there = await call(node, 'PATCH', url, users.there.get(name)!, { clicks: 1 });
        assert.equal(there.status, 200, there.raw);
        assert.equal((await call(pair.single, 'PATCH', url, users.here.get(name)!, { clicks: 1 })).status, 200);
      }
    const together = await sameAsOneNode(
      '/api/v1/search/recommendations',
      { document_id: 'paper-1', strategy: 'collaborative', limit: 10 },
      true,
    );
    assert.deepEqual(together.map((h) => h.document_id).sort(), ['note-4', 'paper-10', 'paper-20', 'place-5']);
    await sameAsOneNode(
      '/api/v1/search/recommendations',
      {
        document_id: 'paper-20',
        strategy: 'hybrid',
        content_weight: 0.4,
        collab_weight: 0.3,
        graph_weight: 0.3,
        edge_type: 'cites',
      },
      true,
    );
    // A caller who may not read the private papers and places: each part applies the access rule, as one node does.
    for (const [url, body] of [
      ['/api/v1/search/recommendations', { document_id: 'paper-3', strategy: 'content', min_similarity: 0, limit: 60 }],
      ['/api/v1/search/graph', { query_type: 'bfs', start_node_id: 'paper-0', depth: 4, limit: 60, edge_type: '*' }],
      ['/api/v1/search/multi-table', { table_names: ['papers', 'places'], query: 'term10 term12', limit: 60 }],
    ] as const) {
      const reference = await call(pair.single, 'POST', url, users.here.get('u1')!, body);
      assert.equal(reference.status, 200, reference.raw);
      const { time_taken: _r, ...want } = reference.body;
      const shown = JSON.stringify(want);
      for (const hidden of ['paper-4"', 'paper-13"', 'place-4"', 'place-13"'])
        assert.ok(!shown.includes(hidden), hidden);
      for (const node of pair.nodes) {
        const res = await call(node, 'POST', url, users.there.get('u1')!, body);
        assert.equal(res.status, 200, res.raw);
        const { time_taken: _t, ...got } = res.body;
        assert.deepEqual(got, want, `${url} as a user through ${pair.cluster.nameOf(node)}`);
      }
    }
    // A seed no part holds: the same 404 as one node's.
    const body = { document_id: 'paper-999' };
    const alone = await call(pair.single, 'POST', '/api/v1/search/recommendations', pair.alone.token, body);
    const there = await call(pair.nodes[2]!, 'POST', '/api/v1/search/recommendations', pair.tenant.token, body);
    const code = (answer: Record<string, unknown>) => (answer.error as { code?: string } | undefined)?.code;
    assert.deepEqual([there.status, code(there.body)], [alone.status, code(alone.body)]);
    assert.equal(alone.status, 404, alone.raw);
  });

  test('get, update and delete by id through a node without the document answer from a holder', async () => {
    const view = (await call(pair.nodes[0]!, 'GET', '/api/v1/cluster', pair.tenant.token))
      .body as unknown as ClusterView;
    const placed = view.collections.find((c) => c.name === 'papers' && c.tenant_id === pair.tenant.tenantId);
    assert.ok(placed);
    const collection = collectionId(pair.tenant.tenantId, 'papers');
    // A document still there (year 2004's are deleted above) whose shard one node does not hold.
    let chosen: { node: TestServer; id: string } | undefined;
    for (let i = 0; i < papers.length && !chosen; i += 1) {
      if (i % 5 === 4) continue;
      const replicas = placed.shards[documentShard(collection, `paper-${i}`, 6)]!.replicas;
      const outsider = pair.cluster.names.find((name) => !replicas.includes(name));
      if (outsider) chosen = { node: pair.cluster.node(outsider), id: `paper-${i}` };
    }
    assert.ok(chosen, 'some document has a node without its shard');
    const { node, id } = chosen;
    const url = `/api/v1/documents/${id}`;
    const got = await call(node, 'GET', url, pair.tenant.token);
    assert.equal(got.status, 200, got.raw);
    assert.equal((got.body.document as { id: string }).id, id);
    const key = { 'Idempotency-Key': `patch-${id}` };
    const patched = await call(node, 'PATCH', url, pair.tenant.token, { metadata: { year: 1999 } }, key);
    assert.equal(patched.status, 200, patched.raw);
    assert.equal(patched.body.version, 2);
    // A retry with the same key through the same node is applied once: the key travels to the holder.
    const retried = await call(node, 'PATCH', url, pair.tenant.token, { metadata: { year: 1999 } }, key);
    assert.equal(retried.status, 200, retried.raw);
    assert.equal(retried.body.version, 2);
    const again = (await call(node, 'GET', url, pair.tenant.token)).body.document as {
      version: number;
      metadata: { year: number };
    };
    assert.deepEqual([again.version, again.metadata.year], [2, 1999]);
    const deleted = await call(node, 'DELETE', `${url}?permanent=true`, pair.tenant.token);
    assert.equal(deleted.status, 200, deleted.raw);
    const gone = await call(node, 'GET', url, pair.tenant.token);
    assert.equal(gone.status, 404, gone.raw);
    const missing = await call(node, 'GET', '/api/v1/documents/no-such-paper', pair.tenant.token);
    assert.equal(missing.status, 404, missing.raw);
    // Deleted on its three holders.
    let held: number[] = [];
    await until(
      async () => {
        held = await Promise.all(
          pair.nodes.map(
            async (n) =>
              (await call(n, 'GET', '/api/v1/collections/papers', pair.tenant.token)).body.documents as number,
          ),
        );
        return held.reduce((x, y) => x + y, 0) === 47 * 3;
      },
      () => `its three holders applied the delete: ${held.join(', ')}`,
    );
  });

  test('a kind not fanned out yet answers 501 naming it', async () => {
    // RM3 feedback expands the query from the top documents of one node: not fanned out yet.
    const feedback = await call(pair.nodes[1]!, 'POST', '/api/v1/search/text', pair.tenant.token, {
      query: 'term10',
      query_type: 'match',
      primary_table: 'papers',
      feedback: { docs: 3, terms: 5, original_weight: 0.5 },
    });
    assert.equal(feedback.status, 501, feedback.raw);
    assert.match(feedback.raw, /feedback on the partitioned collection papers/);
    // A join's partners are read where its left document is: a partitioned collection on the right is not yet.
    const joined = await call(pair.nodes[3]!, 'POST', '/api/v1/search/multi-table', pair.tenant.token, {
      table_names: ['notes', 'papers'],
      join_conditions: [
        { left_table: 'notes', left_field: 'title', operator: 'ne', right_table: 'papers', right_field: 'title' },
      ],
      limit: 5,
    });
    assert.equal(joined.status, 501, joined.raw);
    assert.match(joined.raw, /search-multi-table joining to the partitioned collection papers/);
  });

  test('a node stopped: searches and writes go on through the others; back, it holds its share again', async () => {
    const query = { query: 'term15 term30 term40', query_type: 'match', primary_table: 'papers', limit: 10 };
    const reference = async () => {
      const res = await call(pair.single, 'POST', '/api/v1/search/text', pair.alone.token, query);
      assert.equal(res.status, 200, res.raw);
      return (res.body.results as Hit[]).map((h) => h.document_id);
    };
    const idsThrough = async (node: TestServer) => {
      const res = await call(node, 'POST', '/api/v1/search/text', pair.tenant.token, query);
      return res.status === 200 ? (res.body.results as Hit[]).map((h) => h.document_id) : [`${res.status}`];
    };
    let counts: number[] = [];
    const held = async () => {
      counts = await Promise.all(
        pair.cluster.nodes.map(
          async (n) => (await call(n, 'GET', '/api/v1/collections/papers', pair.tenant.token)).body.documents as number,
        ),
      );
      return counts.reduce((x, y) => x + y, 0);
    };
    const heldBefore = await held();
    await pair.cluster.stop('c');
    const [a, b] = [pair.cluster.node('a'), pair.cluster.node('b')];
    // Each shard has three replicas on five nodes: once c counts as gone, another replica of each of its shards answers.
    const expected = await reference();
    let got: string[] = [];
    await until(
      async () => {
        got = await idsThrough(a);
        return JSON.stringify(got) === JSON.stringify(expected);
      },
      () => `a search through a answers without c: ${got.join(', ')}`,
    );
    // Writes go on: each shard has a live replica to acknowledge them.
    const written = Array.from({ length: 6 }, (_, i) => ({
      id: `while-c-is-away-${i}`,
      title: `Away ${i}`,
      content: `term15 term30 away${i}`,
      primary_table: 'papers',
    }));
    for (const [i, doc] of written.entries()) {
      const res = await call(i % 2 === 0 ? a : b, 'POST', '/api/v1/documents', pair.tenant.token, doc);
      assert.equal(res.status, 201, res.raw);
      assert.equal((await call(pair.single, 'POST', '/api/v1/documents', pair.alone.token, doc)).status, 201);
    }
    const after = await reference();
    for (const node of [a, b]) assert.deepEqual(await idsThrough(node), after, pair.cluster.nameOf(node));
    // Back: it replays what it missed and answers as the others do, holding its share (every document three times).
    const c = await pair.cluster.start('c');
    const thrice = heldBefore + 3 * written.length;
    await until(
      async () => (await held()) === thrice,
      () => `every document of papers held three times again (${thrice}): ${counts.join(', ')}`,
      { boundMs: 60_000 },
    );
    await until(async () => JSON.stringify(await idsThrough(c)) === JSON.stringify(after), 'c answers as the others');
  });

  test('with two NATS servers of three killed, searches go on marked stale and writes answer 503', async () => {
    const query = { query: 'term15 term30', query_type: 'match', primary_table: 'papers', limit: 10 };
    const before = await call(pair.cluster.nodes[0]!, 'POST', '/api/v1/search/text', pair.tenant.token, query);
    assert.equal(before.status, 200, before.raw);
    const ids = (res: { body: Record<string, unknown> }) => (res.body.results as Hit[]).map((h) => h.document_id);
    assert.ok(ids(before).length > 0);
    const { nats } = pair.cluster;
    await Promise.all([nats.kill(1), nats.kill(2)]);
    try {
      // Request and reply between the nodes need no JetStream majority; which nodes are alive is the last known.
      for (const node of pair.cluster.nodes) {
        let last: Awaited<ReturnType<typeof call>> | undefined;
        await until(
          async () => {
            last = await call(node, 'POST', '/api/v1/search/text', pair.tenant.token, query);
            return last.status === 200 && last.headers['x-godb-stale'] === 'true';
          },
          () => `a search through ${pair.cluster.nameOf(node)} answered and marked stale: ${last?.status} ${last?.raw}`,
        );
        assert.deepEqual(ids(last!), ids(before));
      }
      const write = await call(pair.cluster.nodes[1]!, 'POST', '/api/v1/documents', pair.tenant.token, {
        id: 'during-the-outage',
        content: 'term15 written while NATS had no majority',
        primary_table: 'papers',
      });
      assert.equal(write.status, 503, write.raw);
      assert.equal((write.body.error as { code: string }).code, 'CLUSTER_UNAVAILABLE');
    } finally {
      await Promise.all([nats.restart(1), nats.restart(2)]);
    }
  });
});
