import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../../test-support/server.js';

/**
 * Issue #37, item 11: a phrase query over a few documents scored 0.000002. That is BM25's idf as SQLite FTS5
 * computes it — log((N − n + 0.5) / (n + 0.5)), floored at 0.000001 — for a phrase most of the documents hold: the
 * same floor a word gets, on the same scale as match queries (and faceted search, which ranks as match). A phrase
 * few documents hold scores as a word would.
 */

let server: TestServer;
let token: string;
const k1 = 1.2;
const b = 0.75;

const documents = [
  { id: 'a', title: 'Notes', content: 'wing lift at low speed' },
  { id: 'b', title: 'Notes', content: 'wing lift in a slipstream' },
  { id: 'c', title: 'Notes', content: 'wing lift and drag' },
  { id: 'd', title: 'Notes', content: 'nozzle flow measured' },
  { id: 'e', title: 'Notes', content: 'shock wave over a cone' },
];

before(async () => {
  server = await startTestServer();
  ({ token } = await server.registerTenant());
  const batch = documents.map((d) => ({ ...d, embedding_options: { enabled: false } }));
  const added = await server.call('POST', '/api/v1/documents/batch', token, batch);
  assert.ok(added.status < 300, JSON.stringify(added.body));
});
after(async () => server.close());

async function scores(url: string, body: Record<string, unknown>): Promise<Record<string, number>> {
  const res = await server.call('POST', url, token, body);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const results = (res.body as { results: { document_id: string; score: number }[] }).results;
  return Object.fromEntries(results.map((r) => [r.document_id, r.score]));
}

/** BM25 of one term (or phrase) occurring once in the content of a document of `length` tokens. */
function bm25(n: number, length: number): number {
  const total = documents.reduce((sum, d) => sum + `${d.title} ${d.content}`.split(' ').length, 0);
  const idf = Math.max(1e-6, Math.log((documents.length - n + 0.5) / (n + 0.5)));
  return (idf * (k1 + 1)) / (1 + k1 * (1 - b + (b * length) / (total / documents.length)));
}

test('a phrase most documents hold gets the idf floor, as a word most documents hold does', async () => {
  const phrase = await scores('/api/v1/search/text', { query: 'wing lift', query_type: 'phrase' });
  const word = await scores('/api/v1/search/text', { query: 'wing', query_type: 'match' });
  assert.deepEqual(Object.keys(phrase).sort(), ['a', 'b', 'c']);
  for (const id of ['a', 'b', 'c']) {
    assert.ok(phrase[id]! < 1e-5, `phrase in 3 of 5 documents: ${phrase[id]}`);
    assert.ok(Math.abs(phrase[id]! - word[id]!) < 1e-6, 'the same floor as the word');
  }
});

test('a phrase few documents hold scores on the BM25 scale of match queries', async () => {
  const phrase = await scores('/api/v1/search/text', { query: 'in a slipstream', query_type: 'phrase' });
  const word = await scores('/api/v1/search/text', { query: 'slipstream', query_type: 'match' });
  assert.ok(Math.abs(phrase.b! - bm25(1, 6)) < 1e-6, `${phrase.b} against ${bm25(1, 6)}`);
  assert.ok(Math.abs(phrase.b! - word.b!) < 1e-6, 'a phrase in one document scores as a word in one document');
  assert.ok(phrase.b! > 1);
});

test('faceted search ranks its query as a match query, with the same scores', async () => {
  for (const query of ['slipstream', 'wing nozzle cone']) {
    const faceted = await scores('/api/v1/search/faceted', { query, facets: ['tags'] });
    const match = await scores('/api/v1/search/text', { query, query_type: 'match' });
    assert.deepEqual(faceted, match, query);
  }
  const all = await scores('/api/v1/search/faceted', { facets: ['tags'] });
  assert.ok(
    Object.values(all).every((s) => s === 1),
    'without a query every document scores 1',
  );
});
