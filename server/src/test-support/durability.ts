import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from './server.js';
import { withTempDirs } from './temp-dirs.js';

type Owner = Awaited<ReturnType<TestServer['registerTenant']>>;

/**
 * Takes a snapshot of the token's tenant, runs `change` (what the restore must undo), restores the snapshot and
 * waits for the restore job to finish; each step must succeed.
 *
 * @example await snapshotChangeRestore(server, admin.token, () => deleteTop());
 */
export async function snapshotChangeRestore(server: TestServer, token: string, change: () => Promise<void>) {
  const taken = await server.call('POST', '/api/v1/snapshots', token);
  assert.equal(taken.status, 202, taken.text);
  const { snapshot_id: id, job_id: jobId } = taken.body as { snapshot_id: string; job_id: string };
  assert.equal((await server.finishedJob(token, jobId)).status, 'done');
  await change();
  const restored = await server.call('POST', '/api/v1/snapshots/restore', token, { snapshot_id: id });
  assert.equal(restored.status, 202, restored.text);
  const job = await server.finishedJob(token, (restored.body as { job_id: string }).job_id);
  assert.equal(job.status, 'done', job.error);
}

/**
 * Starts a server on a fresh data folder, lets `fill` write as a new tenant's admin, reads with `read`, restarts the
 * server on the same folder and reads again as the same admin: both answers are returned for the test to compare.
 *
 * @example const { before, after } = await readAcrossRestart(fill, (s, token) => search(s, token));
 */
export async function readAcrossRestart<T>(
  fill: (server: TestServer, owner: Owner) => Promise<void>,
  read: (server: TestServer, token: string) => Promise<T>,
  env: Record<string, string> = {},
): Promise<{ before: T; after: T }> {
  return withTempDirs(['godb-restart-'], async ([dataDir]) => {
    const first = await startTestServer({ ...env, DATA_DIR: dataDir });
    let owner: Owner;
    let before: T;
    try {
      owner = await first.registerTenant();
      await fill(first, owner);
      before = await read(first, owner.token);
    } finally {
      await first.close();
    }
    const again = await startTestServer({ ...env, DATA_DIR: dataDir });
    try {
      return { before, after: await read(again, await again.login(owner.email, owner.password)) };
    } finally {
      await again.close();
    }
  });
}
