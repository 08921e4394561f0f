import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { connect, millis, type NatsConnection } from '@nats-io/transport-node';
import { startNatsCluster, type NatsCluster } from '../test-support/nats-cluster.js';
import { until } from '../test-support/until.js';
import { Lease, openBucket } from './lease.js';
import { ClusterProgress } from './progress.js';

const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };

let nats: NatsCluster;
const connections: NatsConnection[] = [];
const open = async (name: string) => {
  const nc = await connect({ servers: [...nats.urls], name });
  connections.push(nc);
  return nc;
};

before(async () => {
  nats = await startNatsCluster(1);
});

after(async () => {
  for (const nc of connections) if (!nc.isClosed()) await nc.close();
  await nats.stop();
});

test('two contenders: one holds the lease; when it dies the other takes it after expiry, with a larger token', async () => {
  const options = { job: 'test-job', ttlMs: 1_500, replicas: 1, logger: quiet };
  const changes: (number | null)[] = [];
  const first = await Lease.start(await open('first'), { ...options, holder: 'first' });
  const second = await Lease.start(await open('second'), {
    ...options,
    holder: 'second',
    onChange: (token) => changes.push(token),
  });
  try {
    assert.ok(first.token !== null, 'the first contender took the free lease');
    assert.equal(second.token, null, 'the second does not hold it while the first renews');
    assert.equal(await second.holder(), 'first');
    // Several renewal rounds: the holder keeps it, the other keeps failing to take it.
    await second.tick();
    await first.tick();
    await second.tick();
    assert.ok(first.token !== null);
    assert.equal(second.token, null);
    const firstToken = first.token;

    // The holder dies: its connection closes with the process; it renews no more, and nothing releases the key.
    const died = performance.now();
    await connections[0]!.close();
    await until(() => second.token !== null, 'the second contender took the lease');
    console.log(`lease hand-over after the holder died: ${Math.round(performance.now() - died)} ms (TTL 1500 ms)`);
    assert.ok(second.token! > firstToken, 'the new holder fences with a larger token');
    assert.equal(first.token, null, 'the dead holder no longer believes it holds the lease');
    assert.equal(await second.holder(), 'second');
    assert.deepEqual(changes, [second.token]);
  } finally {
    await first.stop();
  }

  // A holder that stops releases the key: a new contender takes it at its first attempt.
  await second.stop();
  const third = await Lease.start(await open('third'), { ...options, holder: 'third' });
  try {
    assert.ok(third.token !== null, 'a released lease is taken at once');
  } finally {
    await third.stop();
  }
});

test('progress: every node heard from is live; a node that stops reporting is gone after the configured time', async () => {
  let applied = 5;
  const a = await ClusterProgress.open(await open('pa'), {
    node: 'a',
    goneAfterMs: 1_000,
    replicas: 1,
    report: () => ({ applied: [applied, 1] }),
    logger: quiet,
  });
  const b = await ClusterProgress.open(await open('pb'), {
    node: 'b',
    goneAfterMs: 1_000,
    replicas: 1,
    report: () => ({ applied: [3, 0] }),
    logger: quiet,
  });
  await a.start();
  await b.start();
  try {
    const nodes = async () =>
      Object.fromEntries((await a.live()).map((p) => [p.node, p.applied[0]])) as Record<string, number>;
    assert.deepEqual(await nodes(), { a: 5, b: 3 });
    // Every shard's sequence is reported (index = shard).
    assert.deepEqual((await a.live()).find((p) => p.node === 'a')?.applied, [5, 1]);
    applied = 9;
    await a.report();
    assert.deepEqual(await nodes(), { a: 9, b: 3 });
    await b.stop();
    await until(async () => !('b' in (await nodes())), 'node b counted as gone');
    assert.deepEqual(await nodes(), { a: 9 });
  } finally {
    await a.stop();
  }
});

test('a bucket made earlier with another TTL is given the configured one (NATS keeps settings as they were made)', async () => {
  const nc = await open('ttl');
  await openBucket(nc, 'godb-ttl-test', { ttlMs: 1_000, replicas: 1, logger: quiet });
  const kv = await openBucket(nc, 'godb-ttl-test', { ttlMs: 5_000, replicas: 1, logger: quiet });
  assert.equal(millis((await kv.status()).streamInfo.config.max_age), 5_000);
});
