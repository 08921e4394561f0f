import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../../test-support/server.js';

/**
 * Issue #18, tenant snapshots and restores that walk rowid ranges in slices sized by time: a tenant whose rows lie
 * between another tenant's (the two wrote in turns) is snapshotted and restored whole — the other tenant's rows in
 * the same ranges are neither copied nor touched — and after the restore the text index, rebuilt in bulk from the
 * restored rows by chunk ranges, answers every query exactly as it did when the snapshot was taken: the same
 * documents with the same scores, public and private ones, updated documents by their current version, deleted ones
 * not at all; geo and counts too.
 */

const words = 'shock wave boundary layer heat transfer wing lift drag nozzle flow vortex panel shell stress'.split(' ');
const queries = ['nozzle', 'shock wave', 'heat transfer', 'vortex OR panel', 'layer', '"wing lift"'];

describe('issue 18: snapshot and restore by rowid ranges', () => {
  let server: TestServer;

  before(async () => {
    // Small slices: every phase takes many ranges, as a large tenant's would.
    server = await startTestServer({ DEFAULT_EMBEDDING_MODEL: 'glove-100', RESTORE_SLICE_ROWS: '7' });
  });
  after(() => server.close());

  const call = (token: string, method: 'GET' | 'POST' | 'DELETE', url: string, payload?: unknown) =>
    server.call(method, url, token, payload);
  /** What the tenant's user sees: every query's documents and scores, geo hits and the count. */
  const answers = async (token: string) => {
    const seen: Record<string, unknown> = {};
    for (const query of queries) {
      const res = await call(token, 'POST', '/api/v1/search/text', { query, limit: 100 });
      assert.equal(res.status, 200, res.text);
      seen[query] = (res.body.results as { id: string; score: number }[]).map((hit) => [hit.id, hit.score.toFixed(6)]);
    }
    const geo = await call(token, 'POST', '/api/v1/search/geo', { lat: 48, lon: 2, radius: 5, limit: 100 });
    assert.equal(geo.status, 200, geo.text);
    seen.geo = (geo.body.results as { id: string }[]).map((hit) => hit.id).sort();
    seen.count = (await call(token, 'POST', '/api/v1/documents/count', {})).body.count;
    return seen;
  };

  test('a tenant between another’s rows comes back whole, its text index answering as before', async () => {
    const owner = await server.registerTenant();
    const other = await server.registerTenant();
    const doc = (prefix: string, i: number) => ({
      id: `${prefix}${i}`,
      title: `${words[(i * 5) % words.length]} report ${i}`,
      content: `${words[i % words.length]} ${words[(i * 7) % words.length]} ${words[(i * 11) % words.length]}`,
      visibility: i % 3 === 0 ? 'private' : 'public',
      location: [48 + (i % 10) / 100, 2 + (i % 10) / 100],
      embedding_options: { enabled: false },
    });
    // In turns, so that each tenant's rows lie between the other's in every table.
    for (let round = 0; round < 6; round += 1) {
      for (const [token, prefix] of [
        [owner.token, 'a'],
        [other.token, 'b'],
      ] as const) {
        const batch = Array.from({ length: 15 }, (_v, i) => doc(prefix, round * 15 + i));
        const res = await call(token, 'POST', '/api/v1/documents/batch', batch);
        assert.equal(res.status, 200, res.text);
      }
    }
    // Versions and deletions the index must leave out: an older version of a3, the deleted a4.
    const updated = await call(owner.token, 'POST', '/api/v1/documents', { ...doc('a', 3), content: 'turbine nozzle' });
    assert.ok(updated.status < 300, updated.text);
    assert.equal((await call(owner.token, 'DELETE', '/api/v1/documents/a4')).status, 200);

    const before = await answers(owner.token);
    const theirs = await answers(other.token);
    assert.equal(before.count, 89);
    assert.ok((before.nozzle as unknown[]).length > 0, 'the queries find documents');

    const taken = await call(owner.token, 'POST', '/api/v1/snapshots');
    assert.equal(taken.status, 202, taken.text);
    const snapshotJob = await server.finishedJob(owner.token, taken.body.job_id);
    assert.equal(snapshotJob.status, 'done', snapshotJob.error);

    // Changes after the snapshot, which the restore takes back.
    assert.equal((await call(owner.token, 'POST', '/api/v1/documents', { ...doc('late', 0), id: 'late' })).status, 201);
    assert.equal((await call(owner.token, 'DELETE', '/api/v1/documents/a10')).status, 200);
    assert.notDeepEqual(await answers(owner.token), before);

    const restoring = await call(owner.token, 'POST', '/api/v1/snapshots/restore', {
      snapshot_id: taken.body.snapshot_id,
    });
    assert.equal(restoring.status, 202, restoring.text);
    const restoreJob = await server.finishedJob(owner.token, restoring.body.job_id);
    assert.equal(restoreJob.status, 'done', restoreJob.error);

    assert.deepEqual(await answers(owner.token), before, 'the restored tenant answers as at its snapshot');
    assert.deepEqual(await answers(other.token), theirs, 'the other tenant is untouched');
  });
});
