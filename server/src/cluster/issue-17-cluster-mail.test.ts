import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { mailRelayDuty } from '../service/mail/relay-outbox.js';
import type { TestServer } from '../test-support/server.js';
import { startTestCluster, type TestCluster } from '../test-support/test-cluster.js';
import { SmtpPeer } from '../test-support/smtp-peer.js';

/**
 * Issue #17: mail in cluster mode. Messages are queued through the replicated log on any node; only the holder of
 * the lease on the singleton work relays them to SMTP, and its marks carry the lease's fencing token, so a former
 * holder cannot mark mail once a new holder took over. Three real nats-server processes, three GoDB nodes, a real
 * SMTP peer.
 */
describe('cluster mode: mail relayed once, by the lease holder (issue #17)', () => {
  let cluster: TestCluster;
  const smtp = new SmtpPeer();
  let smtpPort = 0;
  // A bound for a broken cluster (the test fails instead of hanging), not an assertion on speed.
  const bound = { timeout: 120_000 };

  const holder = async () => {
    for (;;) {
      const found = cluster.nodes.find((n) => n.clusterDuties!.lease.token !== null);
      if (found) return found;
      await sleep(100);
    }
  };
  const outboxRow = (node: TestServer, id: string) =>
    node.engine.db.prepare('SELECT status, attempts, sent_at FROM outbox WHERE id = ?').get(id) as
      { status: string; attempts: number; sent_at: number | null } | undefined;
  const message = (node: TestServer, subject: string) =>
    node.app.inject({
      method: 'POST',
      url: '/api/v1/mail',
      payload: { from_name: 'Ada', from_email: 'ada@example.com', subject, message: 'Hello from the cluster.' },
    });

  before(async () => {
    smtpPort = await smtp.start();
    cluster = await startTestCluster({
      prefix: 'mail',
      env: {
        SMTP_HOST: '127.0.0.1',
        SMTP_PORT: String(smtpPort),
        MAIL_TEAM_ADDRESS: 'team@godb.test',
        MAIL_RETRY_BASE_MS: '200',
        CLUSTER_LEASE_TTL_MS: '3000',
      },
    });
  });

  after(async () => {
    await cluster?.close();
    await smtp.stop();
  });

  test(
    'a message sent through a node that does not hold the lease reaches SMTP once, marked sent on every node',
    bound,
    async () => {
      const relaying = await holder();
      const taker = cluster.nodes.find((n) => n !== relaying)!;
      const res = await message(taker, 'Sent through a follower');
      assert.equal(res.statusCode, 200, res.body);
      const [id] = (res.json() as { message_ids: string[] }).message_ids as [string];
      await smtp.waitForMessage((m) => m.subject === 'Sent through a follower');
      for (;;) {
        await cluster.settle();
        if (cluster.nodes.every((n) => outboxRow(n, id)?.status === 'sent')) break;
        await sleep(100);
      }
      // Every node holds the same row, and with it marked sent no node relays it again: it went out once.
      assert.equal(new Set(cluster.nodes.map((n) => JSON.stringify(outboxRow(n, id)))).size, 1);
      assert.equal(smtp.received.filter((m) => m.subject === 'Sent through a follower').length, 1);
    },
  );

  test(
    'a message sent again with its Idempotency-Key, on another node, is queued and delivered once',
    bound,
    async () => {
      const [first, second] = cluster.nodes as [TestServer, TestServer];
      const send = (node: TestServer) =>
        node.app.inject({
          method: 'POST',
          url: '/api/v1/mail',
          headers: { 'idempotency-key': 'contact-form-42' },
          payload: { from_name: 'Ada', from_email: 'ada@example.com', subject: 'Sent twice', message: 'Once, please.' },
        });
      const one = await send(first);
      const two = await send(second);
      assert.equal(one.statusCode, 200, one.body);
      assert.equal(two.statusCode, 200, two.body);
      assert.deepEqual(two.json(), one.json());
      const [id] = (one.json() as { message_ids: string[] }).message_ids as [string];
      await smtp.waitForMessage((m) => m.subject === 'Sent twice');
      for (;;) {
        await cluster.settle();
        if (cluster.nodes.every((n) => outboxRow(n, id)?.status === 'sent')) break;
        await sleep(100);
      }
      assert.equal(smtp.received.filter((m) => m.subject === 'Sent twice').length, 1);
    },
  );

  test(
    'when the holder stops, the next holder relays what is left, and the former holder’s token is refused',
    bound,
    async () => {
      const former = await holder();
      const formerToken = former.clusterDuties!.lease.token!;
      // SMTP is down: the holder tries, fails and marks the attempt (an operation every node applies).
      await smtp.stop();
      const taker = cluster.nodes.find((n) => n !== former)!;
      const res = await message(taker, 'Left for the next holder');
      assert.equal(res.statusCode, 200, res.body);
      const [id] = (res.json() as { message_ids: string[] }).message_ids as [string];
      for (;;) {
        await cluster.settle();
        if (cluster.nodes.every((n) => (outboxRow(n, id)?.attempts ?? 0) >= 1)) break;
        await sleep(100);
      }
      // The holder stops (it releases the lease); SMTP comes back; another node takes the lease and relays.
      await cluster.stop(cluster.nameOf(former));
      await smtp.start(smtpPort);
      const next = await holder();
      assert.ok(next.clusterDuties!.lease.token! > formerToken);
      await smtp.waitForMessage((m) => m.subject === 'Left for the next holder');
      for (;;) {
        await cluster.settle();
        if (cluster.nodes.every((n) => outboxRow(n, id)?.status === 'sent')) break;
        await sleep(100);
      }
      assert.equal(smtp.received.filter((m) => m.subject === 'Left for the next holder').length, 1);
      // A mark of the former holder arriving now (it stalled) is refused on every node, in log order.
      const stale = await next.cluster!.submit({
        kind: 'mail',
        method: 'markFailed',
        args: [id, 0, 'a stalled former holder', 200],
        fence: { duty: mailRelayDuty, token: formerToken },
      });
      assert.deepEqual(stale, { fenced: true });
      await cluster.settle();
      for (const node of cluster.nodes) assert.equal(outboxRow(node, id)?.status, 'sent');
    },
  );
});
