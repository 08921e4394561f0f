import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { hybridAnswer } from '../../engine/search/hybrid-answer.js';
import type { SearchPool } from '../../engine/search/search-pool/search-pool.js';
import type { SearchAnswer } from '../../engine/search/vector-answer.js';
import { seededRandom } from '../../test-support/fuzz-inputs.js';
import { glove } from '../../test-support/glove-documents.js';
import { bearer, startTestServer, type TestServer } from '../../test-support/server.js';
import { until } from '../../test-support/until.js';

// Issue #40: hybrid searches by a collection's own vector run whole on the search workers (SEARCH_THREADS=2): both
// sides and their fusion, the same answer as the main thread (ids, scores, chunks, highlights), each caller what it
// may read; a write acknowledged before a search is seen by it; after the pool closes, the main thread answers alike.

const dims = 12;
const total = 2300; // past the exact-scan size: the graph's mapped view answers the vector side
let server: TestServer;
let token: string;
let userToken: string;
let pool: SearchPool;

const next = seededRandom(4040);
const vectorOf = () => Array.from({ length: dims }, () => next() * 2 - 1);
const words =
  'shock wave boundary layer heat transfer wing lift drag nozzle flow vortex panel shell stress river mountain city music garden ocean forest winter summer engine train market school doctor kitchen window bridge island storm desert planet'.split(
    ' ',
  );
const sentence = (n: number) => Array.from({ length: n }, () => words[Math.floor(next() * words.length)]).join(' ');
type Result = { document_id: string; score: number };

async function write(docs: object[]) {
  for (let i = 0; i < docs.length; i += 100) {
    const res = await server.app.inject({
      method: 'POST',
      url: '/api/v1/documents/batch',
      headers: bearer(token),
      payload: docs.slice(i, i + 100),
    });
    assert.equal(res.statusCode, 200, res.body.slice(0, 300));
  }
}

async function hybrid(body: object, as = token): Promise<SearchAnswer> {
  const res = await server.app.inject({
    method: 'POST',
    url: '/api/v1/search/hybrid',
    headers: bearer(as),
    // Limit 5: the vector side asks for 10, which over 2,300 documents is a search a worker takes (not a scan).
    payload: { primary_table: 'mixed', vector_name: 'v', limit: 5, ...body },
  });
  assert.equal(res.statusCode, 200, res.body);
  return res.json() as SearchAnswer;
}

/** The same answer but its time: results (ids, scores to 1e-6, chunks, highlights), total, ranking, notes. */
function same(alone: SearchAnswer, pooled: SearchAnswer, what: string) {
  const { time_taken: _a, results: aloneResults, ...aloneRest } = alone;
  const { time_taken: _p, results: pooledResults, ...pooledRest } = pooled;
  assert.deepEqual(pooledRest, aloneRest, what);
  assert.deepEqual(
    pooledResults.map((r) => r.document_id),
    aloneResults.map((r) => r.document_id),
    what,
  );
  for (const [j, r] of aloneResults.entries()) {
    const p = pooledResults[j]!;
    assert.ok(Math.abs(r.score - p.score) < 1e-6, `${what}: score ${j}`);
    assert.deepEqual(
      p.chunks.map((c) => c.id),
      r.chunks.map((c) => c.id),
      what,
    );
    assert.deepEqual(p.highlights, r.highlights, what);
  }
}

/** Until the graph is checkpointed (its view published) and a worker has the text index: answered there. */
async function pooled(byEmbedding = false) {
  const body = byEmbedding
    ? { query: sentence(2), primary_table: undefined, vector_name: undefined }
    : { query: sentence(2), vector: vectorOf() };
  await until(
    async () => {
      const before = pool.counts.hybridAnswered;
      await hybrid(body);
      return pool.counts.hybridAnswered > before;
    },
    () => `a worker answers hybrid searches${byEmbedding ? ' by embedding' : ''}: ${JSON.stringify(pool.counts)}`,
  );
}

/** Each pooled search beside the main thread's answer to it, taken in the same turn as the dispatch. */
const pairs: { alone: SearchAnswer; pooled: SearchAnswer }[] = [];

before(async () => {
  server = await startTestServer({
    SEARCH_THREADS: '2',
    // Hybrid search by embedding embeds with the default model: glove-100, quick to load.
    DEFAULT_EMBEDDING_MODEL: 'glove-100',
    CHECKPOINT_WRITES: '1',
    CHECKPOINT_INTERVAL_S: '1',
    WRITE_TIMEOUT_MS: '20000',
    MAX_CONCURRENT_OPERATIONS: '16',
  });
  const admin = await server.registerTenant();
  token = admin.token;
  userToken = (await server.addUser(admin)).token;
  pool = server.engine.searchPool!;
  assert.ok(pool, 'SEARCH_THREADS=2 makes a pool');
  const created = await server.call('POST', '/api/v1/collections', token, {
    name: 'mixed',
    vectors: { v: { dimensions: dims } },
  });
  assert.equal(created.status, 201, created.text);
  await write(
    Array.from({ length: total }, (_, i) => ({
      id: `m-${i}`,
      primary_table: 'mixed',
      content: sentence(10),
      vectors: { v: vectorOf() },
      ...(i % 4 === 0 && { visibility: 'private' }),
    })),
  );
  // Documents in no collection, embedded with glove-100: a hybrid search by embedding (its query embedded on the
  // main thread, the rest on a worker).
  await write(
    Array.from({ length: total }, (_, i) => ({
      id: `e-${i}`,
      content: sentence(10),
      embedding_options: glove,
      ...(i % 4 === 0 && { visibility: 'private' }),
    })),
  );
  assert.ok(await server.engine.text.loaded(admin.tenantId), 'the main thread’s text index is ready');
  const original = pool.hybrid.bind(pool);
  pool.hybrid = async (core, scope, query, shown) => {
    const alone = await hybridAnswer(core, null, scope, query, shown, () => 0);
    const pooled = await original(core, scope, query, shown);
    if (pooled) pairs.push({ alone, pooled });
    return pooled;
  };
  await pooled();
  await pooled(true);
});
after(async () => {
  await server?.close();
});

describe('hybrid search on the search workers (issue #40)', () => {
  const asked = Array.from({ length: 8 }, (_, i) => ({
    query: sentence(3),
    vector: vectorOf(),
    alpha: [0.3, 0.7][i % 2]!,
    fusion: ['dbsf_relative', 'rrf', 'weighted', 'dbsf'][i % 4]!,
    highlight: i % 2 === 0,
  }));
  const fromWorkers: { admin: SearchAnswer[]; user: SearchAnswer[] } = { admin: [], user: [] };

  test('a write acknowledged before a search is seen by it', async () => {
    for (let i = 0; i < 3; i += 1) {
      const vector = vectorOf();
      await write([{ id: `new-${i}`, primary_table: 'mixed', content: `zeppelin${i} hangar`, vectors: { v: vector } }]);
      const found = await hybrid({ query: `zeppelin${i}`, vector, alpha: 0.5 });
      assert.equal((found.results as Result[])[0]?.document_id, `new-${i}`, `write ${i} seen by the next search`);
    }
    // Once checkpointed again, the workers answer this collection again.
    await pooled();
  });

  test('workers answer hybrid searches as the main thread does, each caller what it may read', async () => {
    const before = pool.counts.hybridAnswered;
    pairs.length = 0;
    for (const body of asked) {
      fromWorkers.admin.push(await hybrid(body));
      fromWorkers.user.push(await hybrid(body, userToken));
    }
    // Only the vector side: answered there too.
    fromWorkers.admin.push(await hybrid({ vector: asked[0]!.vector }));
    // By embedding, in no collection: the query embedded here, the search there.
    for (const body of asked.slice(0, 4)) {
      const { vector: _v, ...words } = body;
      await hybrid({ ...words, primary_table: undefined, vector_name: undefined });
      await hybrid({ ...words, primary_table: undefined, vector_name: undefined }, userToken);
    }
    const count = 2 * asked.length + 1 + 8;
    assert.equal(pool.counts.hybridAnswered - before, count, 'every query answered by a worker');
    assert.equal(pairs.length, count);
    for (const [i, { alone, pooled }] of pairs.entries()) same(alone, pooled, `query ${i}`);
    const privates = (answers: SearchAnswer[]) =>
      answers.flatMap((a) => a.results).filter((r) => Number(r.document_id.split('-')[1]) % 4 === 0);
    assert.ok(privates(fromWorkers.admin).length > 0, 'the admin finds private documents');
    assert.equal(privates(fromWorkers.user).length, 0, 'the user finds no private document');
    assert.ok(
      fromWorkers.admin.some((a) => a.results.some((r) => (r.highlights?.length ?? 0) > 0)),
      'highlights',
    );
  });

  test('a learned ranking and filters stay on the main thread', async () => {
    const before = pool.counts.hybridAnswered;
    await hybrid({ ...asked[0]!, use_ml_ranking: true });
    await hybrid({ ...asked[1]!, filters: [{ field: 'visibility', operator: 'eq', value: 'public' }] });
    assert.equal(pool.counts.hybridAnswered, before);
  });

  test('closing the pool: the main thread answers the same', async () => {
    await pool.close();
    const before = pool.counts.hybridAnswered;
    for (const [i, body] of asked.entries()) {
      same(await hybrid(body), fromWorkers.admin[i]!, `after the close, query ${i}`);
      same(await hybrid(body, userToken), fromWorkers.user[i]!, `after the close, the user's query ${i}`);
    }
    assert.equal(pool.counts.hybridAnswered, before);
  });
});
