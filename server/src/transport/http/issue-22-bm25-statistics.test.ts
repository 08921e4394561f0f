import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { seededRandom } from '../../engine/vectors/kmeans.js';
import { bearer, startTestServer, type TestServer } from '../../test-support/server.js';

/**
 * Issue #22, the statistical side channel: BM25's statistics (chunk count, average length, how many chunks hold a
 * word) and the order of fuzzy, wildcard and autocomplete candidates count public documents only. What a reader
 * is answered — each document's score and rank, total_hits, expansions and suggestions — stays the same, to the
 * last digit, whatever other users write in documents the reader may not see; it moves, for everyone alike, when
 * a document becomes public or stops being public.
 */

type Admin = Awaited<ReturnType<TestServer['registerTenant']>>;
interface Session {
  readonly token: string;
  readonly userId: string;
}
let server: TestServer;
let alice: Admin; // the tenant's admin: writes the public documents
let bob: Session; // reads
let carol: Session; // writes private and shared documents
let dave: Session; // carol shares with him

async function call(method: 'GET' | 'POST' | 'PUT', url: string, who: Session, payload?: unknown) {
  const res = await server.app.inject({
    method,
    url,
    headers: bearer(who.token),
    ...(payload !== undefined && { payload: payload as Record<string, unknown> }),
  });
  assert.ok(res.statusCode < 300, `${method} ${url}: ${res.statusCode} ${res.body}`);
  return res.json() as Record<string, unknown>;
}

const vocabulary = 'boundary layer turbulent turbine turbo flow heat nozzle drag wing'.split(' ');
const next = seededRandom(2222);
const text = (n: number) => Array.from({ length: n }, () => vocabulary[Math.floor(next() * 10)]).join(' ');
const plain = { embedding_options: { enabled: false } };

/** Every answer that ranks words or expands them, as `who` gets it (without the time it took). */
async function answers(who: Session): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  const ask = async (name: string, method: 'GET' | 'POST', url: string, body?: unknown) => {
    const { time_taken: _time, ...rest } = await call(method, url, who, body);
    out[name] = rest;
  };
  await ask('match', 'POST', '/api/v1/search/text', { query: 'turbulent flow', query_type: 'match', limit: 10 });
  await ask('match, one result', 'POST', '/api/v1/search/text', { query: 'boundary', query_type: 'match', limit: 1 });
  await ask('phrase', 'POST', '/api/v1/search/text', { query: 'boundary layer', query_type: 'phrase', limit: 10 });
  await ask('wildcard', 'POST', '/api/v1/search/text', { query: 'turb* flow', query_type: 'wildcard', limit: 10 });
  await ask('fuzzy', 'POST', '/api/v1/search/fuzzy', { query: 'turbin hwat', fuzziness: 2, limit: 10 });
  await ask('hybrid', 'POST', '/api/v1/search/hybrid', { query: 'turbulent heat', limit: 10 });
  await ask('faceted', 'POST', '/api/v1/search/faceted', { query: 'nozzle', facets: ['tags'], limit: 10 });
  await ask('multi-table', 'POST', '/api/v1/search/multi-table', {
    table_names: ['documents', 'notes'],
    query: 'drag wing',
    limit: 10,
  });
  await ask('search box', 'GET', '/api/v1/search?query=heat%20nozzle&limit=10');
  await ask('smart', 'POST', '/api/v1/search/smart', { query: 'turb*', limit: 10 });
  await ask('autocomplete', 'POST', '/api/v1/search/autocomplete', { prefix: 'qua', field: 'content', limit: 1 });
  return out;
}

before(async () => {
  server = await startTestServer();
  alice = await server.registerTenant();
  bob = await server.addUser(alice);
  carol = await server.addUser(alice);
  dave = await server.addUser(alice);
  // 260 public chunks hold `boundary`: more than the 200 a one-result search reads.
  const published = Array.from({ length: 260 }, (_v, i) => ({
    id: `pub-${i}`,
    title: text(2),
    content: `boundary ${text(5 + Math.floor(next() * 40))}${i % 7 === 0 ? ' vortex' : ''}${i % 11 === 0 ? ' plume' : ''}`,
    tags: [vocabulary[i % 10]!],
    ...(i % 3 === 0 && { primary_table: 'notes' }),
    ...plain,
  }));
  // Autocomplete: `quasar` is in more readable documents than any other completion of `qua`.
  const completions = ['quasar', 'quasar', 'quasar', 'quark', 'quail', 'quartz', 'quay'].map((word, i) => ({
    id: `qua-${i}`,
    content: `${word} notes`,
    ...plain,
  }));
  await call('POST', '/api/v1/documents/batch', alice, [...published, ...completions]);
});
after(() => server.close());

test("a reader's answers do not move when others write private and shared documents using the same words", async () => {
  const before = await answers(bob);
  // Carol writes the same words, often: private documents, documents shared with someone else, a new version,
  // a change of visibility between private and shared, and words that would outrank `quasar` by their count.
  const hidden = Array.from({ length: 300 }, (_v, i) => ({
    id: `carol-${i}`,
    title: 'boundary turbulent turbine',
    content: `boundary boundary ${'turbulent flow heat nozzle drag wing turbo '.repeat(1 + (i % 4))} layer`,
    visibility: i % 2 === 0 ? 'private' : 'shared',
    ...(i % 2 === 1 && { access_list: [dave.userId] }),
    tags: ['secret'],
    ...(i % 5 === 0 && { primary_table: 'notes' }),
    ...plain,
  }));
  // Each in four of carol's documents: more than the three that hold `quasar`.
  const words = ['quark', 'quail', 'quartz', 'quay'].flatMap((word) =>
    [1, 2, 3, 4].map((copy) => ({
      id: `carol-${word}-${copy}`,
      content: `${word} ${word} quasi quartet`,
      visibility: 'private',
      ...plain,
    })),
  );
  await call('POST', '/api/v1/documents/batch', carol, [...hidden, ...words]);
  await call('POST', '/api/v1/documents', carol, { ...hidden[0], content: 'boundary layer '.repeat(50) });
  await call('PUT', '/api/v1/documents/carol-2/visibility', carol, { visibility: 'shared' });
  await call('PUT', '/api/v1/documents/carol-3/visibility', carol, { visibility: 'private' });

  const after = await answers(bob);
  for (const name of Object.keys(before)) assert.deepEqual(after[name], before[name], name);
  // What the comparison rests on: the answers rank something, and carol's words do count for carol.
  const match = before.match as { results: { score: number }[]; total_hits: number };
  assert.ok(match.results.length === 10 && match.results[0]!.score > 0);
  assert.equal((before['match, one result'] as { total_hits: number }).total_hits, 200, 'a window of 200 chunks');
  assert.deepEqual(
    ((before.autocomplete as { suggestions: { text: string }[] }).suggestions ?? []).map((s) => s.text),
    ['quasar'],
  );
  const own = (await call('POST', '/api/v1/search/text', carol, { query: 'boundary', limit: 1 })) as {
    results: { document_id: string }[];
  };
  assert.match(own.results[0]!.document_id, /^carol-/, 'her own documents rank first for her');
});

test("a document shared with the reader joins the answers without moving the other documents' scores", async () => {
  const query = { query: 'vortex plume', query_type: 'match', limit: 100 };
  const scores = (answer: Record<string, unknown>) =>
    new Map((answer.results as { document_id: string; score: number }[]).map((r) => [r.document_id, r.score]));
  const before = scores(await call('POST', '/api/v1/search/text', bob, query));
  await call('POST', '/api/v1/documents', carol, {
    id: 'for-bob',
    title: 'plume vortex plume',
    content: 'plume vortex '.repeat(20),
    visibility: 'private',
    acl: [{ user_id: bob.userId, role: 'view' }],
    ...plain,
  });
  const after = scores(await call('POST', '/api/v1/search/text', bob, query));
  assert.ok(after.has('for-bob'), 'bob reads it');
  for (const [id, score] of before) if (after.has(id)) assert.equal(after.get(id), score, id);
});

test('making a document public moves the statistics for every reader alike, and making it private moves them back', async () => {
  const query = { query: 'vortex plume', query_type: 'match', limit: 100 };
  const ranking = async (who: Session) =>
    ((await call('POST', '/api/v1/search/text', who, query)).results as { document_id: string; score: number }[])
      .filter((r) => r.document_id.startsWith('pub-'))
      .map((r) => [r.document_id, r.score]);
  await call('POST', '/api/v1/documents', carol, {
    id: 'soon-public',
    title: 'vortex plume vortex',
    content: `vortex plume ${text(300)}`,
    visibility: 'private',
    ...plain,
  });
  const start = await ranking(bob);
  assert.deepEqual(await ranking(carol), start, 'the same scores for every reader');

  await call('PUT', '/api/v1/documents/soon-public/visibility', carol, { visibility: 'public' });
  const opened = await ranking(bob);
  assert.notDeepEqual(opened, start, 'a public document counts in the statistics');
  assert.deepEqual(await ranking(carol), opened);
  assert.deepEqual(await ranking(dave), opened);

  await call('PUT', '/api/v1/documents/soon-public/visibility', carol, { visibility: 'private' });
  assert.deepEqual(await ranking(bob), start, 'and no longer counts once it is private again');
  assert.deepEqual(await ranking(carol), start);
});
