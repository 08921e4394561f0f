import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { startNatsCluster, type NatsCluster } from '../test-support/nats-cluster.js';
import { until } from '../test-support/until.js';
import { NatsServerWatch } from './nats-server-watch.js';
import { addressOf } from './nats-version.js';

// Issue #17: the NATS servers' versions are checked at a node's start (nats-version.ts); a server that joins the
// cluster or comes back later is checked when the connection reports it. This machine has Debian bookworm's
// nats-server 2.9 only, so every server here fails NATS_SYNC_ALWAYS's 2.10 rule: the test watches a connection made
// while the third server was stopped, as if the two others had passed the start checks, then starts the third.

/** A logger that keeps its lines. */
const recorder = () => {
  const lines: { level: 'info' | 'error'; obj: object; message: string }[] = [];
  return {
    lines,
    info: (obj: object, message: string) => void lines.push({ level: 'info', obj, message }),
    error: (obj: object, message: string) => void lines.push({ level: 'error', obj, message }),
  };
};

let nats: NatsCluster;
const connections: NatsConnection[] = [];

before(async () => {
  nats = await startNatsCluster();
});

after(async () => {
  for (const nc of connections) if (!nc.isClosed()) await nc.close();
  await nats.stop();
});

/** A client of the first server only, made while the third is stopped; the third is started after it. */
async function thirdJoins(syncAlways: boolean) {
  await nats.stop(2);
  const nc = await connect({ servers: [nats.urls[0]!], maxReconnectAttempts: -1, reconnectTimeWait: 250 });
  connections.push(nc);
  const logger = recorder();
  const watch = NatsServerWatch.start(nc, { syncAlways, logger });
  await nats.restart(2);
  return { nc, watch, logger, third: addressOf(nats.urls[2]!) };
}

test('with NATS_SYNC_ALWAYS, a 2.9 server that joins after the start stops writes, named, until it is gone', async () => {
  const { watch, logger, third } = await thirdJoins(true);
  await until(() => watch.refusal() !== null, 'the joined server checked');
  const refusal = watch.refusal()!;
  assert.equal(refusal.server, third);
  assert.match(refusal.version ?? '', /^2\.9\./);
  assert.match(
    refusal.reason,
    new RegExp(
      `^NATS_SYNC_ALWAYS=true, and the NATS server ${third}, which joined the cluster after this node started, reports nats-server 2\\.9\\.\\d+, older than 2\\.10\\.0`,
    ),
  );
  const refused = logger.lines.filter((l) => l.level === 'error');
  assert.equal(refused.length, 1, JSON.stringify(logger.lines));
  assert.match(
    refused[0]!.message,
    /^cluster mode: this node refuses writes \(503 CLUSTER_NOT_DURABLE, \/readyz 503\)/,
  );
  assert.ok(refused[0]!.message.includes(third));

  // Stopped, it leaves the list the cluster advertises: writes are taken again.
  await nats.stop(2);
  await until(() => watch.refusal() === null, 'the stopped server forgotten');
  assert.ok(
    logger.lines.some((l) => l.level === 'info' && l.message.includes(`NATS server ${third} no longer stops writes`)),
  );
  // Back again, still 2.9: checked again, refused again.
  await nats.restart(2);
  await until(() => watch.refusal()?.server === third, 'the server checked again when it came back');
});

test('without NATS_SYNC_ALWAYS, a server that joins later is checked against 2.9 and named, and writes go on', async () => {
  const { watch, logger, third } = await thirdJoins(false);
  await until(
    () =>
      logger.lines.some((l) => l.message === 'cluster mode: a NATS server joined the cluster; its version was checked'),
    'the joined server checked',
  );
  await watch.settled();
  const checked = logger.lines.find((l) => l.message.includes('joined the cluster'))!;
  assert.equal((checked.obj as { server: string }).server, third);
  assert.match((checked.obj as { version: string }).version, /^2\.9\./);
  assert.equal(watch.refusal(), null);
  assert.deepEqual(
    logger.lines.filter((l) => l.level === 'error'),
    [],
  );
});
