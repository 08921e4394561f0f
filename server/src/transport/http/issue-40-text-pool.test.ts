import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { SearchPool } from '../../engine/search/search-pool/search-pool.js';
import { textAnswer } from '../../engine/search/text-answer.js';
import type { SearchAnswer } from '../../engine/search/vector-answer.js';
import { seededRandom } from '../../test-support/fuzz-inputs.js';
import { glove } from '../../test-support/glove-documents.js';
import { bearer, startTestServer, type TestServer } from '../../test-support/server.js';
import { until } from '../../test-support/until.js';

// Issue #40, decision 0078: BM25 match and phrase searches run on the search workers (SEARCH_THREADS=2), each with
// its own index made to the state the main thread's had at dispatch; the same ids and scores as the main thread
// under concurrent writes, a write acknowledged before a search seen by it, never half a write, a worker that stops
// answered 503 and replaced, and closing the pool lets the search under way finish.

let server: TestServer;
let token: string;
let tenantId: string;
/** Reads only the tenant's public documents (every fourth is private). */
let userToken: string;
let pool: SearchPool;

const next = seededRandom(4078);
const words =
  'shock wave boundary layer heat transfer wing lift drag nozzle flow vortex panel shell stress river mountain city music garden ocean forest winter summer engine train market school doctor kitchen window bridge island storm desert planet'.split(
    ' ',
  );
const word = () => words[Math.floor(next() * words.length)]!;
const sentence = (n: number) => Array.from({ length: n }, word).join(' ');
type Result = { document_id: string; score: number };
type Doc = { id: string; content: string; visibility?: string };

async function write(docs: Doc[]) {
  const res = await server.app.inject({
    method: 'POST',
    url: '/api/v1/documents/batch',
    headers: bearer(token),
    payload: docs.map((d) => ({ ...d, embedding_options: glove })),
  });
  assert.equal(res.statusCode, 200, res.body.slice(0, 300));
}

async function remove(id: string) {
  const res = await server.app.inject({ method: 'DELETE', url: `/api/v1/documents/${id}`, headers: bearer(token) });
  assert.ok(res.statusCode === 200 || res.statusCode === 204, res.body);
}

async function searchRes(query: string, type: 'match' | 'phrase', as = token) {
  return server.app.inject({
    method: 'POST',
    url: '/api/v1/search/text',
    headers: bearer(as),
    payload: { query, query_type: type, limit: 10 },
  });
}

async function search(query: string, type: 'match' | 'phrase' = 'match', as = token) {
  const res = await searchRes(query, type, as);
  assert.equal(res.statusCode, 200, res.body);
  return res.json() as { results: Result[]; total_hits: number };
}

function same(alone: { results: Result[] }, pooled: { results: Result[] }, what: string) {
  assert.deepEqual(
    pooled.results.map((r) => r.document_id),
    alone.results.map((r) => r.document_id),
    what,
  );
  for (const [j, r] of alone.results.entries())
    assert.ok(Math.abs(r.score - pooled.results[j]!.score) < 1e-6, `${what}: score ${j}`);
}

/**
 * Each search the pool answers, beside the main thread's answer to it taken in the same turn of the event loop as
 * the dispatch (so of the same state, whatever commits afterwards): what SEARCH_THREADS=1 would have answered.
 */
const pairs: { alone: SearchAnswer; pooled: SearchAnswer }[] = [];
/** The last search's arguments as the pool was given them (the admin's scope, for a pool of the test's own). */
let asked: Parameters<SearchPool['text']> | undefined;

before(async () => {
  server = await startTestServer({ SEARCH_THREADS: '2', WRITE_TIMEOUT_MS: '20000', MAX_CONCURRENT_OPERATIONS: '16' });
  const admin = await server.registerTenant();
  token = admin.token;
  tenantId = admin.tenantId;
  userToken = (await server.addUser(admin)).token;
  pool = server.engine.searchPool!;
  assert.ok(pool, 'SEARCH_THREADS=2 makes a pool');
  const docs: Doc[] = Array.from({ length: 600 }, (_, i) => ({
    id: `t-${i}`,
    // A few long documents: split into several chunks, they are ranked as wholes (DocumentRanking).
    content: sentence(i % 50 === 0 ? 900 : 12),
    ...(i % 4 === 0 && { visibility: 'private' }),
  }));
  for (let i = 0; i < docs.length; i += 100) await write(docs.slice(i, i + 100));
  assert.ok(await server.engine.text.loaded(tenantId), 'the main thread’s index is ready');
  const original = pool.text.bind(pool);
  pool.text = async (core, scope, q, analysis) => {
    asked = [core, scope, q, analysis];
    const alone = textAnswer(core, scope, q, analysis, () => 0);
    const pooled = await original(core, scope, q, analysis);
    if (pooled) pairs.push({ alone, pooled });
    return pooled;
  };
});
after(async () => {
  await server.close();
});

describe('text search on the search workers (issue #40)', () => {
  const queries = Array.from({ length: 10 }, () => sentence(3));
  const phrases = Array.from({ length: 6 }, () => `${word()} ${word()}`);
  const fromWorkers: { admin: SearchAnswer[]; user: SearchAnswer[] } = { admin: [], user: [] };

  test('workers answer match and phrase searches, the same as the main thread, each caller what it may read', async () => {
    const before = pool.counts.textAnswered;
    pairs.length = 0;
    for (const [i, q] of [...queries, ...phrases].entries()) {
      const type = i < queries.length ? 'match' : 'phrase';
      fromWorkers.admin.push((await search(q, type)) as unknown as SearchAnswer);
      fromWorkers.user.push((await search(q, type, userToken)) as unknown as SearchAnswer);
    }
    const asked = 2 * (queries.length + phrases.length);
    assert.equal(pool.counts.textAnswered - before, asked, 'every query answered by a worker');
    assert.equal(pairs.length, asked);
    for (const [i, { alone, pooled }] of pairs.entries()) same(alone, pooled, `query ${i}`);
    const privates = (answers: SearchAnswer[]) =>
      answers.flatMap((a) => a.results).filter((r) => Number(r.document_id.split('-')[1]) % 4 === 0);
    assert.ok(privates(fromWorkers.admin).length > 0, 'the admin finds private documents');
    assert.equal(privates(fromWorkers.user).length, 0, 'the user finds no private document');
    assert.ok(fromWorkers.admin.some((a) => a.results.length === 10));
  });

  test('a write acknowledged before a search is seen by it: an insert, a visibility change, a delete', async () => {
    for (let i = 0; i < 3; i += 1) {
      const before = pool.counts.textAnswered;
      const marker = `zebra${'x'.repeat(i)}`;
      await write([{ id: `rw-${i}`, content: `${marker} ${sentence(6)}`, visibility: 'private' }]);
      assert.deepEqual(
        (await search(marker)).results.map((r) => r.document_id),
        [`rw-${i}`],
        `insert ${i} seen (chunks added: the worker catches up)`,
      );
      assert.equal((await search(marker, 'match', userToken)).results.length, 0, 'private: not the user’s');
      await write([{ id: `rw-${i}`, content: `${marker} ${sentence(6)}`, visibility: 'public' }]);
      assert.deepEqual(
        (await search(marker, 'match', userToken)).results.map((r) => r.document_id),
        [`rw-${i}`],
        `new public version ${i} seen (a new epoch: the worker builds again)`,
      );
      await remove(`rw-${i}`);
      assert.equal((await search(marker)).results.length, 0, `delete ${i} seen`);
      assert.equal(pool.counts.textAnswered - before, 4, 'each answered by a worker');
    }
  });

  test('under concurrent writes: the main thread’s ids and scores, and never half a write', async () => {
    pairs.length = 0;
    const batch = 5;
    const writes = (async () => {
      for (let round = 0; round < 12; round += 1) {
        const marker = `quokka${String.fromCharCode(97 + round)}`;
        await write(
          Array.from({ length: batch }, (_, j) => ({
            id: `cw-${round}-${j}`,
            content: `${marker} ${sentence(10)}`,
            ...(j === 0 && { visibility: 'private' }),
          })),
        );
        if (round % 3 === 2) await remove(`t-${round}`);
      }
    })();
    const searches = (async () => {
      const halves: string[] = [];
      for (let k = 0; k < 36; k += 1) {
        const marker = `quokka${String.fromCharCode(97 + (k % 12))}`;
        const [marked, plain, phrase] = await Promise.all([
          search(marker),
          search(queries[k % queries.length]!),
          search(phrases[k % phrases.length]!, 'phrase', userToken),
        ]);
        if (marked.total_hits !== 0 && marked.total_hits !== batch) halves.push(`${marker}: ${marked.total_hits}`);
        assert.ok(plain.results.length > 0 && phrase.total_hits >= 0);
      }
      return halves;
    })();
    const [, halves] = await Promise.all([writes, searches]);
    assert.deepEqual(halves, [], 'a batch is seen whole or not at all');
    assert.ok(pairs.length > 0, 'workers answered during the writes');
    for (const [i, { alone, pooled }] of pairs.entries()) same(alone, pooled, `concurrent query ${i}`);
  });

  test('a tenant too large to index inside a query is built between queries, the main thread answering', async () => {
    // A pool of the test's own over the same store, whose workers index at most 10 rows inside a query.
    const small = new SearchPool({
      dbFile: join(server.dataDir, 'godb.sqlite'),
      threads: 2,
      maxQueued: 16,
      view: () => undefined,
      textInlineRows: 10,
    });
    try {
      await search(queries[2]!);
      const [core, scope, q, analysis] = asked!;
      const pooled = () => small.text(core, scope, q, analysis);
      assert.equal(await pooled(), undefined, 'the first query: its worker builds, the main thread answers');
      assert.equal(small.counts.textBuilds, 1);
      const answered = async () => {
        const alone = textAnswer(core, scope, q, analysis, () => 0);
        const answer = await pooled();
        if (answer) same(alone, answer, 'a built worker’s answer');
        return answer !== undefined;
      };
      await until(answered, 'a worker answers once built');
      await write([{ id: 'big-0', content: `${q.query} ${sentence(4)}` }]);
      await until(answered, 'a worker answers after an insert (caught up inside the query)');
      await remove('big-0');
      const builds = small.counts.textBuilds;
      await until(answered, 'a worker answers after a delete (built again between queries)');
      assert.ok(small.counts.textBuilds > builds, 'the delete made the workers build again');
    } finally {
      await small.close();
    }
  });

  test('a worker that stops mid-query is replaced, and its query answered 503', async () => {
    const replaced = pool.counts.replaced;
    pool.sending = (worker) => {
      pool.sending = undefined;
      void worker.terminate();
    };
    const res = await searchRes(queries[0]!, 'match');
    assert.equal(res.statusCode, 503, res.body);
    const error = (res.json() as { error: { code: string; status: number } }).error;
    assert.equal(error.code, 'SEARCH_WORKER_FAILED');
    assert.equal(error.status, 503);
    assert.equal(pool.counts.replaced, replaced + 1);
    const answered = pool.counts.textAnswered;
    pairs.length = 0;
    await search(queries[0]!);
    assert.equal(pool.counts.textAnswered, answered + 1, 'the next query is answered by a new worker');
    same(pairs[0]!.alone, pairs[0]!.pooled, 'the new worker’s answer');
  });

  test('closing the pool lets the search under way finish; then the main thread answers the same', async () => {
    let closing: Promise<void> | undefined;
    pool.sending = () => {
      pool.sending = undefined;
      closing = pool.close();
    };
    const answered = pool.counts.textAnswered;
    pairs.length = 0;
    const during = await search(queries[1]!);
    assert.equal(pool.counts.textAnswered, answered + 1, 'the search sent before the close was answered by its worker');
    await closing;
    same(pairs[0]!.alone, during as unknown as SearchAnswer, 'the drained search');
    const alone = await search(queries[1]!);
    assert.equal(pool.counts.textAnswered, answered + 1, 'after the close, the main thread answers');
    same(alone, during, 'the same answer');
  });
});
