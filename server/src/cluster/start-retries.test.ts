import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError } from '../config/env.js';
import { retryAtStart } from './start-retries.js';

/** A logger that keeps what it was told, with the level. */
function told() {
  const lines: { level: string; obj: Record<string, unknown>; message: string }[] = [];
  const at = (level: string) => (obj: object, message: string) => lines.push({ level, obj: { ...obj }, message });
  return { lines, logger: { info: at('info'), warn: at('warn'), error: at('error') } };
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
    lines.map((l) => [l.level, l.message, l.obj.attempt, l.obj.of, l.obj.reason]),
    [1, 2].map((attempt) => [
      'info',
      'cluster mode: JetStream did not answer yet while this node starts (opening the KV bucket godb-cluster), an expected retry while the NATS servers elect leaders; trying again',
      attempt,
      8,
      'timeout',
    ]),
  );
});

test('the retries a normal start meets are info (issue #37); from the fourth on they are warnings, never errors', async () => {
  const { lines, logger } = told();
  let calls = 0;
  await retryAtStart(
    'making the shard streams',
    async () => {
      calls += 1;
      if (calls < 6) throw new Error('timeout');
    },
    logger,
    { firstPauseMs: 1 },
  );
  assert.deepEqual(
    lines.map((l) => l.level),
    ['info', 'info', 'info', 'warn', 'warn'],
  );
  assert.match(
    lines[3]!.message,
    /^cluster mode: JetStream has not answered for \d+ s while this node starts \(making the shard streams\); trying again, 4 attempts left$/,
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
