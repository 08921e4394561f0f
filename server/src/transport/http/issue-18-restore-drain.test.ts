import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { request, type IncomingMessage } from 'node:http';
import { join } from 'node:path';
import { bearer, startTestServer, type TestServer } from '../../test-support/server.js';

/**
 * Issue #18, review of the sliced tenant restore: before it replaces anything, a tenant restore waits for the
 * tenant's requests and background writes under way, but at most RESTORE_DRAIN_TIMEOUT_MS. An NDJSON import that
 * the client keeps open outlasts it: the restore job fails with RESTORE_DRAIN_TIMEOUT naming the import, and the
 * tenant is left as it was — it answers at once (no 503), with its data, and the import goes on to the end.
 */

describe('issue 18: a tenant restore waits for the tenant’s work under way only so long', () => {
  let server: TestServer;
  let base: string;

  before(async () => {
    // The import below stays open until the test ends it, so any bound is passed: a short one keeps the test short.
    server = await startTestServer({ DEFAULT_EMBEDDING_MODEL: 'glove-100', RESTORE_DRAIN_TIMEOUT_MS: '300' });
    base = await server.listen();
  });
  after(() => server.close());

  const call = (token: string, method: 'GET' | 'POST', url: string, payload?: object) =>
    server.call(method, url, token, payload);

  test('an import kept open makes the restore fail with RESTORE_DRAIN_TIMEOUT; the tenant is untouched', async () => {
    const owner = await server.registerTenant();
    const docs = Array.from({ length: 20 }, (_v, i) => ({ id: `d${i}`, content: `nozzle flow ${i}` }));
    assert.equal((await call(owner.token, 'POST', '/api/v1/documents/batch', docs)).status, 200);
    const taken = await call(owner.token, 'POST', '/api/v1/snapshots');
    assert.equal(taken.status, 202, taken.text);
    assert.equal((await server.finishedJob(owner.token, taken.body.job_id)).status, 'done');
    assert.equal((await call(owner.token, 'POST', '/api/v1/documents', { id: 'late', content: 'vortex' })).status, 201);

    // An import over real HTTP whose body the client has not finished: its first line is written and answered.
    const url = new URL('/api/v1/documents/import?batch_size=1', base);
    const upload = request(url, {
      method: 'POST',
      headers: { ...bearer(owner.token), 'content-type': 'application/x-ndjson' },
    });
    const answer = new Promise<IncomingMessage>((resolve, reject) => {
      upload.on('response', resolve);
      upload.on('error', reject);
    });
    upload.write(`${JSON.stringify({ id: 'imported-1', content: 'wing lift' })}\n`);
    const response = await answer;
    assert.equal(response.statusCode, 200);
    let answered = '';
    const firstLine = new Promise<void>((resolve) =>
      response.on('data', (chunk: Buffer) => {
        answered += chunk.toString();
        if (answered.includes('\n')) resolve();
      }),
    );
    const ended = new Promise<void>((resolve) => response.on('end', resolve));
    await firstLine;
    assert.match(answered, /"success":true/);

    const restoring = await call(owner.token, 'POST', '/api/v1/snapshots/restore', {
      snapshot_id: taken.body.snapshot_id,
    });
    assert.equal(restoring.status, 202, restoring.text);
    const job = await server.finishedJob(owner.token, restoring.body.job_id);
    assert.equal(job.status, 'failed');
    assert.match(job.error ?? '', /did not start: after 300 ms/);
    assert.match(job.error ?? '', /1 × POST \/api\/v1\/documents\/import/, 'it names what still runs');
    assert.match(job.error ?? '', /Nothing was changed/);

    // Untouched and unfenced: the documents written after the snapshot are still there, and it answers at once.
    const late = await call(owner.token, 'GET', '/api/v1/documents/late');
    assert.equal(late.status, 200, late.text);
    const count = await call(owner.token, 'POST', '/api/v1/documents/count', {});
    assert.equal(count.status, 200, count.text);
    assert.equal(count.body.count, 22);

    // The import goes on: its next line is written too.
    upload.end(`${JSON.stringify({ id: 'imported-2', content: 'heat transfer' })}\n`);
    await ended;
    assert.equal(answered.split('\n').filter(Boolean).length, 2, answered);
    assert.equal((await call(owner.token, 'POST', '/api/v1/documents/count', {})).body.count, 23);
    assert.deepEqual(
      readdirSync(join(server.dataDir, 'snapshots')).filter((n) => n.startsWith('.restore-')),
      [],
      'its unpacked snapshot is gone',
    );

    // Once nothing runs, the same restore goes through.
    const again = await call(owner.token, 'POST', '/api/v1/snapshots/restore', { snapshot_id: taken.body.snapshot_id });
    assert.equal(again.status, 202, again.text);
    const done = await server.finishedJob(owner.token, again.body.job_id);
    assert.equal(done.status, 'done', done.error);
    assert.equal((await call(owner.token, 'POST', '/api/v1/documents/count', {})).body.count, 20);
  });
});
