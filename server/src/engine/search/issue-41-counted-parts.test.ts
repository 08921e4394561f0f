import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openTestEngine } from '../../test-support/engine.js';
import type { CountedDocument, Scope } from './scope.js';

// Issue #41, decision 0089: a node's part of a fanned-out search shows only the documents it counts (Scope.counted:
// the shards asked of it, or the rest of the tenant), so a partial copy of a shard it is moving into never reaches
// the merge. Each kind's part equals the whole answer's hits among the counted documents, in order, with the same
// scores, and counts them alone; the union of the parts is then the whole answer.
const tenantId = '00000000-0000-4000-8000-0000000000fb';
const owner = { tenantId, userId: 'owner', groups: [] as string[] };
const n = 40;

const doc = (i: number) => ({
  id: `d${i}`,
  title: `Paper ${i}`,
  content: `shock waves and boundary layers ${'shock '.repeat(i % 5)}study ${i}`,
  primary_table: i % 4 === 0 ? 'notes' : 'papers',
  tags: [`t${i % 3}`],
  location: [52 + i / 1000, 13 + i / 700] as [number, number],
  vectors: { v: [Math.sin(i), Math.cos(i * 0.7), Math.sin(i * 1.3 + 1), 0.5 + (i % 7) / 10] },
});

/** Even documents of papers, and every note: as a part that counts some shards of papers and the rest. */
const counted: CountedDocument = (d) => d.primary_table === 'notes' || Number(d.id.slice(1)) % 2 === 0;
const isCounted = (id: string) => counted({ id, primary_table: Number(id.slice(1)) % 4 === 0 ? 'notes' : 'papers' });

type Answer = { results: { document_id: string; score: number }[]; total_hits: number };

/** The part's results are the whole answer's counted hits, in order and with their scores; its count theirs. */
function assertPart(kind: string, whole: Answer, part: Answer): void {
  const expected = whole.results.filter((r) => isCounted(r.document_id));
  assert.ok(expected.length > 0 && expected.length < whole.results.length, `${kind}: a part of the answer`);
  assert.deepEqual(
    part.results.map((r) => [r.document_id, r.score]),
    expected.map((r) => [r.document_id, r.score]),
    kind,
  );
  assert.equal(part.total_hits, expected.length, `${kind}: counted`);
}

test('a part of a fanned-out search shows and counts only the documents it counts (issue #41)', async () => {
  const engine = openTestEngine(':memory:', 'use-lite-512');
  try {
    await engine.log.submit({
      kind: 'create-collection',
      tenantId,
      body: { name: 'papers', vectors: { v: { dimensions: 4, distance: 'cosine' } } },
    });
    await engine.add(
      owner,
      Array.from({ length: n }, (_, i) => doc(i)),
      (i) => `body[${i}]`,
    );
    while (engine.vectors.lag() > 0) await new Promise((resolve) => setImmediate(resolve));
    const { searches } = engine;
    const scope = (table?: string, part = false): Scope => ({
      viewer: owner,
      now: 0,
      ...(table !== undefined && { table }),
      ...(part && { counted }),
    });

    // Limits above the matches: each answer holds every hit, so the part is exactly the counted ones.
    const text = { query: 'shock study', type: 'match' as const, limit: 100 };
    assertPart('text', await searches.text(scope(), text), await searches.text(scope(undefined, true), text));
    const vector = {
      vector: [0.3, -0.2, 0.9, 0.6],
      vectorName: 'v',
      method: 'cosine' as const,
      threshold: -1,
      limit: 100,
      combineLocation: false,
    };
    assertPart(
      'vector',
      await searches.vector(scope('papers'), vector),
      await searches.vector(scope('papers', true), vector),
    );
    const geo = { lat: 52.05, lon: 13.03, radiusKm: 50, field: 'location' };
    assertPart(
      'geo',
      searches.geo({ ...scope(), geo }, { limit: 100 }),
      searches.geo({ ...scope(undefined, true), geo }, { limit: 100 }),
    );
    const fuzzy = { query: 'shok', fuzziness: 1, prefixLength: 0, limit: 100 };
    assertPart('fuzzy', searches.fuzzy(scope(), fuzzy), searches.fuzzy(scope(undefined, true), fuzzy));
    const faceted = { query: 'shock', facets: ['tags'], limit: 100 };
    assertPart(
      'faceted',
      await searches.faceted(scope(), faceted),
      await searches.faceted(scope(undefined, true), faceted, { keep: counted }),
    );

    const tables = { tables: ['papers', 'notes'], joins: undefined, query: 'shock study', limit: 100 };
    assertPart(
      'multi-table',
      await searches.multiTable(scope(), tables),
      await searches.multiTable(scope(undefined, true), tables),
    );

    // A recommendation's seeds and a graph query's nodes: only what the part counts (a lagging replica's copy of a
    // seed never seeds), and no 404 for a seed another part counts.
    const asked = {
      strategy: 'content' as const,
      userId: 'owner',
      weights: { content: 0.4, collaborative: 0.3, graph: 0.3 },
      minSimilarity: 0,
      graphDepth: 2,
      edgeType: 'links_to',
      limit: 10,
      combineLocation: false,
    };
    const seeds = (documentId: string) => {
      const request = searches.graphs.recommendRequest(scope(undefined, true), { ...asked, documentId });
      return searches.graphs.recommendSeeds(scope(undefined, true), request);
    };
    assert.deepEqual(seeds('d1').readable, []);
    assert.deepEqual(seeds('d2').readable, ['d2']);
    assert.deepEqual([...(seeds('d1').seedSums.values().next().value?.keys() ?? [])], []);
    const graph = searches.graphs.graphShare(scope(undefined, true));
    assert.deepEqual(
      graph.nodes.map((node) => node.id).sort(),
      Array.from({ length: n }, (_, i) => `d${i}`)
        .filter(isCounted)
        .sort(),
    );
    assert.equal(graph.readable, graph.nodes.length);

    // A hybrid search's sides round: each side keeps its counted documents, in order, with their raw scores.
    const hybrid = {
      query: 'shock study',
      vector: [0.3, -0.2, 0.9, 0.6],
      vectorName: 'v',
      alpha: 0.5,
      limit: 20,
      fusion: 'rrf' as const,
      useMlRanking: false,
    };
    const whole = await searches.hybridSides(scope('papers'), hybrid, undefined);
    const part = await searches.hybridSides(scope('papers', true), hybrid, undefined);
    for (const side of ['text', 'vector'] as const) {
      const expected = whole[side].filter((r) => isCounted(r.document_id));
      assert.ok(expected.length > 0 && expected.length < whole[side].length, `${side} side: a part`);
      assert.deepEqual(
        part[side].map((r) => [r.document_id, r.score]),
        expected.map((r) => [r.document_id, r.score]),
        `${side} side`,
      );
    }
  } finally {
    await engine.close();
  }
});
