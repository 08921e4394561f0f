import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { operationById } from '@godb/contract';
import { validateJson } from '../../service/validation.js';
import { bearer, startTestServer, type TestServer } from '../../test-support/server.js';

/**
 * Issue 37: snapshot and restore jobs reported `processed: 1000, total: 1000` for 50 documents: their progress is
 * in thousandths of the work (pages or rows, then bytes), not documents. Every job now says what it counts, in
 * `unit`: documents, NDJSON lines, or thousandths.
 */
let server: TestServer;
let admin: Awaited<ReturnType<TestServer['registerTenant']>>;

before(async () => {
  server = await startTestServer();
  admin = await server.registerTenant();
});
after(() => server.close());

const docs = Array.from({ length: 50 }, (_v, i) => ({
  id: `unit-${i}`,
  title: `Document ${i}`,
  content: `words of document ${i}`,
  embedding_options: { enabled: false },
}));

/** The job as GET /api/v1/jobs/{id} answers it once it ended, checked against the reference's schema. */
async function endedJob(jobId: unknown): Promise<Record<string, unknown>> {
  await server.finishedJob(admin.token, jobId);
  const res = await server.call('GET', `/api/v1/jobs/${String(jobId)}`, admin.token);
  assert.equal(res.status, 200, res.text);
  validateJson(operationById('get-job').success.schema, res.body, 'response');
  return res.body;
}

test('an asynchronous batch of 50 documents counts documents', async () => {
  const accepted = await server.call('POST', '/api/v1/documents/batch?async=true', admin.token, docs);
  assert.equal(accepted.status, 202, accepted.text);
  const job = await endedJob(accepted.body.job_id);
  assert.deepEqual([job.status, job.processed, job.total, job.unit], ['done', 50, 50, 'documents']);
});

test('an asynchronous add counts its one document', async () => {
  const accepted = await server.call('POST', '/api/v1/documents?async=true', admin.token, { ...docs[0], id: 'one' });
  assert.equal(accepted.status, 202, accepted.text);
  const job = await endedJob(accepted.body.job_id);
  assert.deepEqual([job.status, job.processed, job.total, job.unit], ['done', 1, 1, 'documents']);
});

test('an asynchronous NDJSON import counts lines', async () => {
  const res = await server.app.inject({
    method: 'POST',
    url: '/api/v1/documents/import?async=true',
    headers: { ...bearer(admin.token), 'content-type': 'application/x-ndjson' },
    payload: `${docs
      .slice(0, 3)
      .map((d) => JSON.stringify({ ...d, id: `line-${d.id}` }))
      .join('\n')}\n`,
  });
  assert.equal(res.statusCode, 202, res.body);
  const job = await endedJob((res.json() as { job_id: string }).job_id);
  assert.deepEqual([job.status, job.processed, job.total, job.unit], ['done', 3, 3, 'lines']);
});

test('a snapshot and its restore of 50 documents say they count thousandths of the work', async () => {
  const taken = await server.call('POST', '/api/v1/snapshots', admin.token);
  assert.equal(taken.status, 202, taken.text);
  const snapshot = await endedJob(taken.body.job_id);
  assert.deepEqual(
    [snapshot.status, snapshot.processed, snapshot.total, snapshot.unit],
    ['done', 1000, 1000, 'thousandths'],
  );
  const restored = await server.call('POST', '/api/v1/snapshots/restore', admin.token, {
    snapshot_id: taken.body.snapshot_id,
  });
  assert.equal(restored.status, 202, restored.text);
  const restore = await endedJob(restored.body.job_id);
  assert.deepEqual(
    [restore.status, restore.processed, restore.total, restore.unit],
    ['done', 1000, 1000, 'thousandths'],
  );
  assert.equal((await server.call('GET', '/api/v1/documents/unit-49', admin.token)).status, 200);
});
