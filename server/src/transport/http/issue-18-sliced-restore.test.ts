import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { bearer, startTestServer, type Job, type TestServer } from '../../test-support/server.js';

/**
 * Issue #18, a tenant restore that never stops the node: the tenant's rows are replaced a few at a time
 * (RESTORE_SLICE_ROWS), so another tenant writes and searches while it runs; the restored tenant answers 503
 * TENANT_RESTORING meanwhile instead of showing half of its data, its background writes are waited for, and at the
 * end it holds exactly the snapshot's documents, found by text, vector, faceted and geo search.
 */

const words = 'shock wave boundary layer heat transfer wing lift drag nozzle flow vortex panel shell stress'.split(' ');
const glove = { model_name: 'glove-100' };

describe('issue 18: a tenant restore in slices', () => {
  let server: TestServer;

  before(async () => {
    // Small slices: the restore below takes a few hundred turns of the event loop, like a large one would.
    server = await startTestServer({ DEFAULT_EMBEDDING_MODEL: 'glove-100', RESTORE_SLICE_ROWS: '25' });
  });
  after(() => server.close());

  const call = (token: string, method: 'GET' | 'POST', url: string, payload?: object) =>
    server.call(method, url, token, payload);

  test('other tenants are served during the restore, the restored tenant waits, then holds the snapshot', async () => {
    const owner = await server.registerTenant();
    const other = await server.registerTenant();
    const docs = Array.from({ length: 600 }, (_v, i) => ({
      id: `d${i}`,
      title: `paper ${i}`,
      content: `${words[i % words.length]} ${words[(i * 7) % words.length]} ${words[(i * 11) % words.length]}`,
      tags: [words[i % 3]!],
      location: [48 + (i % 10) / 100, 2 + (i % 10) / 100],
      embedding_options: glove,
    }));
    const batch = await call(owner.token, 'POST', '/api/v1/documents/batch', docs);
    assert.equal(batch.status, 200, batch.text);

    const taken = await call(owner.token, 'POST', '/api/v1/snapshots');
    assert.equal(taken.status, 202, taken.text);
    const snapshotJob = await server.finishedJob(owner.token, taken.body.job_id);
    assert.equal(snapshotJob.status, 'done', snapshotJob.error);
    // Changes after the snapshot, which the restore takes back.
    assert.equal((await call(owner.token, 'POST', '/api/v1/documents', { id: 'late', content: 'vortex' })).status, 201);
    const deleted = await server.app.inject({
      method: 'DELETE',
      url: '/api/v1/documents/d1',
      headers: bearer(owner.token),
    });
    assert.equal(deleted.statusCode, 200, deleted.body);

    const restoring = await call(owner.token, 'POST', '/api/v1/snapshots/restore', {
      snapshot_id: taken.body.snapshot_id,
    });
    assert.equal(restoring.status, 202, restoring.text);
    const jobUrl = `/api/v1/jobs/${String(restoring.body.job_id)}`;

    // While it runs: the other tenant writes and searches; the owner's searches and writes wait with a 503.
    const writtenMeanwhile: string[] = [];
    const refusals: Record<string, unknown>[] = [];
    let job: Job;
    for (let i = 0; ; i += 1) {
      const written = await call(other.token, 'POST', '/api/v1/documents', { id: `o${i}`, content: 'marimba' });
      assert.equal(written.status, 201, written.text);
      const searched = await call(other.token, 'POST', '/api/v1/search/text', { query: 'marimba' });
      assert.equal(searched.status, 200, searched.text);
      const ownSearch = await call(owner.token, 'POST', '/api/v1/search/text', { query: 'vortex' });
      job = (await call(owner.token, 'GET', jobUrl)).body as unknown as Job;
      if (job.status !== 'running') break;
      writtenMeanwhile.push(`o${i}`);
      if (ownSearch.status === 503) refusals.push(ownSearch.body);
      else assert.equal(ownSearch.status, 200, 'only after the restore, which is still running: never half of it');
    }
    assert.equal(job.status, 'done', job.error);
    assert.ok(
      writtenMeanwhile.length >= 2,
      `the other tenant wrote while the restore ran (${writtenMeanwhile.length})`,
    );
    assert.ok(refusals.length >= 1, 'the restored tenant answered 503 while it ran');
    const error = refusals[0]!.error as { code: string; message: string };
    assert.equal(error.code, 'TENANT_RESTORING');
    assert.match(error.message, new RegExp(String(taken.body.snapshot_id)));

    // After: exactly the snapshot, by every kind of search; the other tenant kept every write.
    const count = await call(owner.token, 'POST', '/api/v1/documents/count', {});
    assert.equal(count.body.count, 600, count.text);
    assert.equal((await call(owner.token, 'GET', '/api/v1/documents/late')).status, 404);
    assert.equal((await call(owner.token, 'GET', '/api/v1/documents/d1')).status, 200);
    const text = await call(owner.token, 'POST', '/api/v1/search/text', { query: 'nozzle', limit: 100 });
    assert.equal(text.status, 200, text.text);
    assert.ok((text.body.results as unknown[]).length > 0);
    const vector = await call(owner.token, 'POST', '/api/v1/search/vector', {
      query: 'nozzle',
      embedding_options: glove,
      threshold: 0,
    });
    assert.equal(vector.status, 200, vector.text);
    assert.ok((vector.body.results as unknown[]).length > 0);
    const geo = await call(owner.token, 'POST', '/api/v1/search/geo', { lat: 48, lon: 2, radius: 1 });
    assert.equal(geo.status, 200, geo.text);
    assert.ok((geo.body.results as unknown[]).length > 0, geo.text);
    const theirs = await call(other.token, 'POST', '/api/v1/documents/count', {});
    assert.equal(theirs.body.count, writtenMeanwhile.length + 1);
  });
});
