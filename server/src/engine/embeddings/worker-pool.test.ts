import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createError, isGoDBError } from '@godb/contract';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { WorkerPool, type WorkerPoolOptions } from './worker-pool.js';

/** One use-lite worker with room for one waiting request, unless `options` say otherwise. */
const useLite = (options: Partial<WorkerPoolOptions> = {}) =>
  new WorkerPool({
    script: 'use-lite-worker',
    size: 1,
    queueLimit: 1,
    batchSize: 32,
    dimensions: 512,
    modelName: 'use-lite-512',
    ...options,
  });

test('a full queue answers 503 EMBEDDING_QUEUE_FULL instead of growing without bound', async () => {
  const pool = useLite();
  try {
    const first = pool.embed(['waits for the worker to load']);
    await assert.rejects(pool.embed(['one too many']), (e: unknown) => {
      assert.ok(isGoDBError(e));
      assert.equal(e.code, 'EMBEDDING_QUEUE_FULL');
      assert.equal(e.status, 503);
      assert.match(e.message, /1 requests waiting for use-lite-512/);
      return true;
    });
    const result = await first;
    assert.equal(result.vectors.length, 512);
    // Once the queue drains, requests are accepted again.
    assert.equal((await pool.embed(['again'])).tokenCounts.length, 1);
  } finally {
    await pool.close();
  }
});

test('a request whose caller aborts leaves the queue at once and frees its place (issue #22)', async () => {
  const pool = useLite();
  try {
    const caller = new AbortController();
    // Queued: the worker is still loading, so nothing is dispatched before the abort.
    const abandoned = pool.embed(['the caller has gone'], caller.signal);
    const reason = createError('REQUEST_CANCELLED');
    caller.abort(reason);
    await assert.rejects(abandoned, (e: unknown) => e === reason);
    // Its place in the queue is free: before, it stayed queued and this answered EMBEDDING_QUEUE_FULL.
    const next = await pool.embed(['served instead']);
    assert.equal(next.tokenCounts.length, 1);
    await assert.rejects(pool.embed(['x'], AbortSignal.abort(reason)), (e: unknown) => e === reason);
  } finally {
    await pool.close();
  }
});

test('a worker module that fails to load fails the waiting requests with MODEL_LOAD_FAILED', async () => {
  const pool = useLite({ script: 'no-such-worker', queueLimit: 5, dimensions: 4, modelName: 'broken' });
  try {
    await assert.rejects(pool.embed(['x']), (e: unknown) => isGoDBError(e) && e.code === 'MODEL_LOAD_FAILED');
    await assert.rejects(pool.embed(['y']), (e: unknown) => isGoDBError(e) && e.code === 'MODEL_LOAD_FAILED');
  } finally {
    await pool.close();
  }
});

test('closing while a batch runs lets it finish, then stops the workers (terminating inside onnxruntime aborts)', async () => {
  const pool = useLite({ queueLimit: 5, workerData: { runtime: 'native' } });
  await pool.embed(['loads the model']);
  const long = Array.from(
    { length: 32 },
    (_v, i) => `${i} ${'the boundary layer over a swept wing separates '.repeat(60)}`,
  );
  const running = pool.embed(long);
  await delay(100); // inside the native run
  await pool.close();
  assert.equal((await running).tokenCounts.length, 32, 'the batch in progress was answered');
  // This test process is still alive: before, it aborted with "terminate called after throwing Napi::Error".
});

test('an idle pool does not keep its process alive, a busy one does', () => {
  // A script that embeds and never closes the pool: it must get its answer, then exit by itself.
  const dir = mkdtempSync(join(tmpdir(), 'godb-pool-exit-'));
  const file = join(dir, 'never-closes.mts');
  writeFileSync(
    file,
    `import { WorkerPool } from ${JSON.stringify(fileURLToPath(new URL('./worker-pool.ts', import.meta.url)))};
    const pool = new WorkerPool({ script: 'use-lite-worker', size: 1, queueLimit: 5, batchSize: 32, dimensions: 512,
      modelName: 'use-lite-512', workerData: { runtime: 'native' } });
    const { tokenCounts } = await pool.embed(['answered before the process may exit']);
    console.log('answered', tokenCounts.length);`,
  );
  try {
    const child = spawnSync(process.execPath, ['--conditions=source', '--import', 'tsx', file], {
      encoding: 'utf8',
      timeout: 60_000,
    });
    assert.equal(child.signal, null, 'exited by itself, not killed at the timeout');
    assert.equal(child.status, 0, child.stderr);
    assert.match(child.stdout, /answered 1/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
