import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { seededRandom } from '../../engine/vectors/kmeans.js';
import { startTestServer, type TestServer } from '../../test-support/server.js';

/**
 * Issue #44: text ranking does not get worse when documents are split into chunks (as an embedding collection
 * splits them). A document is ranked as a whole — its length and term frequencies counted over its chunks, the
 * chunking overlap and the title every chunk repeats counted once — so query words that fall in different chunks
 * add up, and a split document scores exactly as the same document whole; the best chunks are still returned.
 */

interface Result {
  document_id: string;
  score: number;
  chunks: { content: string; score: number }[];
}
let server: TestServer;
const tokens: Record<string, string> = {};

const filler = 'the measured values were compared with the theory over a range of conditions and found to agree'.split(
  ' ',
);
const next = seededRandom(4444);
/** Plain sentences without the query's words, `n` words long. */
const prose = (n: number) => Array.from({ length: n }, () => filler[Math.floor(next() * filler.length)]).join(' ');

/**
 * The relevant document holds each query word once, about 900 characters apart (in different chunks at chunk_size
 * 256 and at 1024); each distractor holds one query word, twice, in a short text — its best chunk beats any one
 * chunk of the relevant document, which is how ranking by best chunk misranked them.
 */
const documents = [
  {
    id: 'relevant',
    title: 'Heat shield study',
    content: `ablation ${prose(150)} reentry ${prose(150)} nozzle ${prose(150)} erosion ${prose(40)}`,
  },
  { id: 'ablation-only', title: 'Materials', content: `ablation ablation ${prose(30)}` },
  { id: 'reentry-only', title: 'Trajectories', content: `reentry reentry ${prose(30)}` },
  { id: 'nozzle-only', title: 'Engines', content: `nozzle nozzle ${prose(30)}` },
  { id: 'erosion-only', title: 'Surfaces', content: `erosion erosion ${prose(30)}` },
  ...Array.from({ length: 20 }, (_v, i) => ({ id: `other${i}`, title: `Report ${i}`, content: prose(60 + i * 10) })),
];

/** How each tenant's collection splits the same documents. */
const layouts = {
  whole: { chunk_size: 65_536, chunk_overlap: 0 },
  default: {},
  small: { chunk_size: 256, chunk_overlap: 200 },
} as const;

before(async () => {
  server = await startTestServer();
  for (const [name, layout] of Object.entries(layouts)) {
    const admin = await server.registerTenant();
    tokens[name] = admin.token;
    const batch = documents.map((d) => ({ ...d, ...layout, embedding_options: { enabled: false } }));
    const added = await server.call('POST', '/api/v1/documents/batch', admin.token, batch);
    assert.ok(added.status < 300, JSON.stringify(added.body));
  }
});
after(async () => server.close());

async function search(layout: string, query: string, queryType: 'match' | 'phrase' = 'match'): Promise<Result[]> {
  const res = await server.call('POST', '/api/v1/search/text', tokens[layout], {
    query,
    query_type: queryType,
    limit: 10,
  });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return (res.body as { results: Result[] }).results;
}

test('the documents are split as asked: whole, 1024-character chunks, 256-character chunks with overlap', async () => {
  for (const [layout, chunks] of [
    ['whole', 1],
    ['default', 3],
    ['small', 20],
  ] as const) {
    const res = await server.call('GET', '/api/v1/documents/relevant', tokens[layout]);
    assert.equal(res.status, 200);
    const got = await search(layout, 'ablation reentry nozzle erosion');
    const relevant = got.find((r) => r.document_id === 'relevant')!;
    assert.ok(relevant.chunks.length >= Math.min(chunks, 3), `${layout}: ${relevant.chunks.length} chunks returned`);
  }
});

test('a document whose query words fall in different chunks ranks first, as it does whole', async () => {
  for (const layout of Object.keys(layouts)) {
    const got = await search(layout, 'ablation reentry nozzle erosion');
    assert.equal(got[0]?.document_id, 'relevant', `${layout}: ${got.map((r) => r.document_id).join(', ')}`);
  }
});

test('a split document scores as the same document whole, on the same BM25 scale, with its best chunks', async () => {
  for (const [query, type] of [
    ['ablation reentry nozzle erosion', 'match'],
    ['theory conditions ablation', 'match'],
    ['the theory', 'phrase'],
    ['range of', 'phrase'],
    ['nozzle', 'match'],
  ] as const) {
    const whole = await search('whole', query, type);
    assert.ok(whole.length > 0, query);
    for (const layout of ['default', 'small']) {
      const split = await search(layout, query, type);
      assert.deepEqual(
        split.map((r) => [r.document_id, r.score.toFixed(9)]),
        whole.map((r) => [r.document_id, r.score.toFixed(9)]),
        `${layout}: ${query}`,
      );
      for (const r of split) {
        // Best chunks first; each scored at most as its document.
        const scores = r.chunks.map((c) => c.score);
        assert.deepEqual(
          scores,
          [...scores].sort((a, b) => b - a),
          `${layout}: ${r.document_id}`,
        );
        assert.ok(scores[0]! <= r.score + 1e-9);
      }
    }
  }
  const best = (await search('small', 'reentry'))[0]!;
  assert.equal(best.document_id, 'reentry-only');
  const relevant = (await search('small', 'reentry')).find((r) => r.document_id === 'relevant')!;
  assert.match(relevant.chunks[0]!.content, /reentry/, 'the chunk holding the word comes first');
});

test('a new version of a split document scores as the new version whole', async () => {
  const content = `erosion ${prose(120)} nozzle ${prose(200)} ablation ablation ${prose(60)}`;
  for (const [layout, options] of Object.entries(layouts)) {
    const res = await server.call('POST', '/api/v1/documents', tokens[layout], {
      id: 'relevant',
      title: 'Heat shield study, revised',
      content,
      ...options,
      embedding_options: { enabled: false },
    });
    assert.ok(res.status < 300, JSON.stringify(res.body));
  }
  for (const query of ['ablation reentry nozzle erosion', 'revised heat shield']) {
    const whole = await search('whole', query);
    for (const layout of ['default', 'small'])
      assert.deepEqual(
        (await search(layout, query)).map((r) => [r.document_id, r.score.toFixed(9)]),
        whole.map((r) => [r.document_id, r.score.toFixed(9)]),
        `${layout}: ${query}`,
      );
  }
});
