import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError } from '../config/env.js';
import { retryAtStart } from './start-retries.js';

/** A logger that keeps what it was told. */
function told() {
  const lines: { obj: Record<string, unknown>; message: string }[] = [];
  return { lines, logger: { error: (obj: object, message: string) => lines.push({ obj: { ...obj }, message }) } };
}

test('a start-up step that fails is run again, each failure logged, until it answers (issue #17)', async () => {
  const { lines, logger } = told();
  let calls = 0;
  const value = await retryAtStart(
    'opening the KV bucket godb-cluster',
    async () => {
      calls += 1;
      if (calls < 3) throw new Error('timeout');
      return 'opened';
    },
    logger,
    { firstPauseMs: 1 },
  );
  assert.equal(value, 'opened');
  assert.equal(calls, 3);
  assert.deepEqual(
    lines.map((l) => [l.message, l.obj.attempt, l.obj.of, l.obj.reason]),
    [
      [
        'cluster mode: JetStream did not answer while this node starts (opening the KV bucket godb-cluster); trying again',
        1,
        8,
        'timeout',
      ],
      [
        'cluster mode: JetStream did not answer while this node starts (opening the KV bucket godb-cluster); trying again',
        2,
        8,
        'timeout',
      ],
    ],
  );
});

test('a start-up step that never answers ends in a ConfigError naming it, after the bounded attempts', async () => {
  const { lines, logger } = told();
  let calls = 0;
  await assert.rejects(
    retryAtStart(
      'listing the shard streams',
      () => {
        calls += 1;
        return Promise.reject(new Error('JetStream system temporarily unavailable'));
      },
      logger,
      { attempts: 3, firstPauseMs: 1 },
    ),
    (error: unknown) =>
      error instanceof ConfigError &&
      /^Cluster mode: the node could not start: listing the shard streams failed 3 times in \d+ s \(the last: JetStream system temporarily unavailable\)\. Check that a majority of the NATS servers/.test(
        error.message,
      ),
  );
  assert.equal(calls, 3);
  assert.equal(lines.length, 2, 'the last failure is the error itself, not a retry');
});

test('a refusal of the step itself (a ConfigError) is not retried', async () => {
  const { lines, logger } = told();
  let calls = 0;
  const refusal = new ConfigError('Cluster mode: CLUSTER_SHARDS is 4, but this cluster has 16');
  await assert.rejects(
    retryAtStart(
      'reading the shard count',
      () => {
        calls += 1;
        return Promise.reject(refusal);
      },
      logger,
      { firstPauseMs: 1 },
    ),
    (error: unknown) => error === refusal,
  );
  assert.equal(calls, 1);
  assert.equal(lines.length, 0);
});
