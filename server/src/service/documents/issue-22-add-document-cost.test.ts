import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { operationById } from '@godb/contract';
import type { Principal, RequestContext } from '../context.js';
import { bearer, startTestServer, type TestServer } from '../../test-support/server.js';

/**
 * Issue 22: adding 1 MB of text took 15–57 s with no asynchronous variant (splitting it by sentence or paragraph
 * was quadratic). A large document can be added in the background, and work whose request was abandoned before
 * the write writes nothing. Deadlines here only detect a hang.
 */
let server: TestServer;
let admin: Awaited<ReturnType<TestServer['registerTenant']>>;
let principal: Principal;

const hangDetector = { timeout: 120_000 };
/** About 1 MB of sentences, the last one with a word found nowhere else. */
const megabyte = `${'Turbulent flow separates behind the step. '.repeat(25_000)}Finally the zyxwvutsr ends here.`;

before(async () => {
  server = await startTestServer();
  admin = await server.registerTenant();
  principal = await server.services.authenticate({ authorization: `Bearer ${admin.token}` });
});

after(() => server.close());

const addDocument = (body: Record<string, unknown>, query: Record<string, unknown>, extra: object = {}) =>
  server.services.invoke(operationById('add-document'), { params: {}, query, body }, {
    principal,
    requestId: 'issue-22',
    ...extra,
  } as RequestContext);

const get = (url: string) => server.app.inject({ method: 'GET', url, headers: bearer(admin.token) });

const search = async (query: string) => {
  const res = await server.app.inject({
    method: 'POST',
    url: '/api/v1/search/text',
    headers: bearer(admin.token),
    payload: { query },
  });
  return (res.json() as { results: { document_id: string }[] }).results.map((r) => r.document_id);
};

test('a 1 MB document split by sentence is stored whole and searchable', hangDetector, async () => {
  const res = await server.app.inject({
    method: 'POST',
    url: '/api/v1/documents',
    headers: bearer(admin.token),
    payload: {
      id: 'megabyte',
      content: megabyte,
      embedding_options: { enabled: false, preprocessing: { strategy: 'sentence' } },
    },
  });
  assert.equal(res.statusCode, 201, res.body);
  assert.deepEqual(await search('zyxwvutsr'), ['megabyte']);
  const { document: doc } = (await get('/api/v1/documents/megabyte')).json() as { document: { content: string } };
  assert.equal(doc.content.length, megabyte.length);
});

test(
  'async=true answers 202 with the id and a job, then the document is embedded and written',
  hangDetector,
  async () => {
    const answer = await server.app.inject({
      method: 'POST',
      url: '/api/v1/documents?async=true',
      headers: bearer(admin.token),
      payload: { content: megabyte.slice(-20_000), title: 'Background' },
    });
    assert.equal(answer.statusCode, 202, answer.body);
    const { document_id: id, job_id: jobId } = answer.json() as { document_id: string; job_id: string };
    assert.match(id, /^[0-9a-f-]{36}$/, 'a generated id is answered at once');
    let job: { status: string; processed: number; total: number } = { status: 'queued', processed: 0, total: 1 };
    while (job.status === 'queued' || job.status === 'running') {
      await new Promise((resolve) => setTimeout(resolve, 50));
      job = (await get(`/api/v1/jobs/${jobId}`)).json() as typeof job;
    }
    assert.deepEqual(job, { ...job, status: 'done', processed: 1, total: 1 });
    const stored = await get(`/api/v1/documents/${id}`);
    assert.equal(stored.statusCode, 200);
    assert.equal((stored.json() as { document: { title: string } }).document.title, 'Background');
  },
);

test('async=true still validates first: an invalid document answers 400 and no job runs', async () => {
  await assert.rejects(
    addDocument({ content: 'x', chunk_size: 100, chunk_overlap: 100 }, { async: true }),
    (error: { field?: string }) => error.field === 'body.chunk_overlap',
  );
});

test('async=false (the default) stores the document before answering', async () => {
  const answer = await server.app.inject({
    method: 'POST',
    url: '/api/v1/documents?async=false',
    headers: bearer(admin.token),
    payload: { id: 'sync-doc', content: 'plain words', embedding_options: { enabled: false } },
  });
  assert.equal(answer.statusCode, 201, answer.body);
  assert.deepEqual(answer.json(), { success: true, document_id: 'sync-doc', version: 1 });
});

test('an add whose request was abandoned before its write writes nothing', async () => {
  const reason = new Error('the client went away');
  await assert.rejects(
    addDocument({ id: 'abandoned', content: 'never stored' }, {}, { signal: AbortSignal.abort(reason) }),
    reason,
  );
  assert.equal((await get('/api/v1/documents/abandoned')).statusCode, 404);
});
