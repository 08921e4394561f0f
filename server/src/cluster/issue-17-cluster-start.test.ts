import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startNodeProcess, type NodeProcess } from '../test-support/node-process.js';
import type { TestServer } from '../test-support/server.js';
import { clusterJwtSecret, startTestCluster, type TestCluster } from '../test-support/test-cluster.js';
import { until } from '../test-support/until.js';

/** A hang detector for a node process's start (a bound, not a timing). */
const startBound = { boundMs: 180_000, pauseMs: 200 };

/** The status /readyz answers on a node process (0 while it does not listen yet). */
const readyz = (node: NodeProcess) =>
  fetch(`${node.baseUrl}/readyz`).then(
    (res) => res.status,
    () => 0,
  );

/**
 * Issue #17: how a cluster node starts. It checks the NATS servers' versions against what it is asked (NATS_SYNC_ALWAYS
 * needs 2.10+ everywhere, this machine's Debian package is 2.9) and refuses to start rather than promise durability
 * the servers silently do not give. It asks JetStream for the shard streams, the KV buckets and the object stores
 * before it serves; a node that starts while JetStream cannot answer (busy, or electing leaders) retries each step,
 * bounded and logged, and comes up once it answers (bench:cluster's catch-up node once exited on one request that
 * timed out).
 */
describe('cluster mode: how a node starts (issue #17)', () => {
  let cluster: TestCluster;
  let a: TestServer;
  const started: NodeProcess[] = [];
  /** Starts node `name` as its own process on the cluster's NATS servers, with `env`. */
  const startProcess = async (name: string, env: Record<string, string> = {}) => {
    const node = await startNodeProcess({
      NATS_URL: cluster.nats.url,
      NODE_ID: name,
      JWT_SECRET: clusterJwtSecret,
      ...env,
    });
    started.push(node);
    return node;
  };

  before(async () => {
    cluster = await startTestCluster({ names: ['a'], prefix: 'start' });
    a = cluster.node('a');
  });

  after(async () => {
    await Promise.all(started.map((node) => node.stop()));
    await cluster?.close();
  });

  test('NATS_SYNC_ALWAYS=true against the nats-server 2.9 servers: the node refuses to start, one line naming them', async () => {
    const c = await startProcess('c', { NATS_SYNC_ALWAYS: 'true' });
    assert.equal(await c.exited, 2, c.output());
    const lines = c.output().trim().split('\n');
    assert.equal(lines.length, 1, c.output());
    assert.match(
      lines[0]!,
      /^Cluster mode: NATS_SYNC_ALWAYS=true says every NATS server syncs each write to disk before acknowledging it \(jetstream \{ sync_interval: always \}\), which nats-server 2\.10\.0 added; .* reports 2\.9\.\d+, .* reports 2\.9\.\d+, .* reports 2\.9\.\d+, which would ignore that and sync on a 2-minute timer/,
    );
    // Every server of the cluster is named, by its client address.
    for (const url of cluster.nats.urls) assert.ok(lines[0]!.includes(url.replace('nats://', '')), `${url} named`);
    // Without the setting, the same servers are accepted (the suite's other nodes run on them).
    assert.equal((await a.call('GET', '/readyz')).status, 200);
  });

  test('retries with a log line per attempt, comes up once a majority of NATS is back, and holds the data', async () => {
    const { token, email, password } = await a.registerTenant();
    const written = await a.call('POST', '/api/v1/documents', token, {
      id: 'before',
      title: 'written before c started',
      content: 'kept',
    });
    assert.equal(written.status, 201, written.text);
    // Two NATS servers of three stopped: JetStream has no majority and answers no request.
    await cluster.nats.stop(1);
    await cluster.nats.stop(2);
    const c = await startProcess('c');
    await until(
      () => c.output().includes('cluster mode: JetStream did not answer yet while this node starts'),
      () => `node c logs that it retries:\n${c.output()}`,
      startBound,
    );
    const retry = c
      .output()
      .split('\n')
      .find((line) => line.includes('JetStream did not answer yet'));
    const logged = JSON.parse(retry ?? '{}') as Record<string, unknown>;
    // The first retries are what a normal start meets too: info, saying so (issue #37), not errors.
    assert.equal(logged.level, 30, retry);
    assert.match(String(logged.msg), /an expected retry while the NATS servers elect leaders; trying again$/);
    assert.equal(logged.attempt, 1, retry);
    assert.equal(logged.of, 8, retry);
    assert.equal(typeof logged.step, 'string', retry);
    assert.equal(await readyz(c), 0, 'node c does not serve while its start waits');
    let exited: number | null | undefined;
    void c.exited.then((code) => (exited = code));
    // Both at once: the node's retries are bounded (about a minute), and each restart waits for a JetStream leader.
    await Promise.all([cluster.nats.restart(1), cluster.nats.restart(2)]);
    await until(
      async () => exited !== undefined || (await readyz(c)) === 200,
      () => `node c serves (exit code ${exited}):\n${c.output()}\n${cluster.nats.logs()}`,
      startBound,
    );
    assert.equal(await readyz(c), 200, c.output());
    // It caught up with the log: the tenant signs in there and reads the document written before it started.
    const login = await fetch(`${c.baseUrl}/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password }),
    });
    assert.equal(login.status, 200);
    const read = await fetch(`${c.baseUrl}/api/v1/documents/before`, {
      headers: { authorization: `Bearer ${((await login.json()) as { token: string }).token}` },
    });
    assert.equal(read.status, 200);
    assert.equal(((await read.json()) as { document: { title: string } }).document.title, 'written before c started');
  });
});
