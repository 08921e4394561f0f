import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startNatsCluster, type NatsCluster } from '../test-support/nats-cluster.js';
import { startNodeProcess, type NodeProcess } from '../test-support/node-process.js';

// Issue #37 (item 10): on `npm run cluster:local` every node spent over 90 s converting GloVe at start, needed or
// not, and its first write took 18 s. Three node processes (main.ts, as `npm start` runs) on a real three-server
// NATS cluster, on an empty model cache they share: each serves its first write and searches within seconds of
// /readyz turning ready, and none converted GloVe, which no request named. A normal start logs no error either.

/** Generous on a loaded two-core machine; the goal (printed beside it) is 2 s. */
const boundMs = 10_000;
const secret = 'a-cluster-wide-secret-of-32-characters-or-more';

describe('a cluster node serves its first requests right after it is ready (issue #37)', () => {
  let nats: NatsCluster;
  const nodes: NodeProcess[] = [];
  const modelCache = mkdtempSync(join(tmpdir(), 'godb-first-requests-models-'));

  before(async () => {
    nats = await startNatsCluster();
    for (const name of ['a', 'b', 'c']) {
      nodes.push(
        await startNodeProcess({ NATS_URL: nats.url, NODE_ID: name, JWT_SECRET: secret, MODEL_CACHE_DIR: modelCache }),
      );
    }
  });

  after(async () => {
    await Promise.all(nodes.map((node) => node.stop()));
    await nats?.stop();
    rmSync(modelCache, { recursive: true, force: true });
  });

  /** Polls /readyz until it answers 200 (a bound for a broken start, not a timing). */
  const ready = async (node: NodeProcess) => {
    for (let attempt = 0; attempt < 1200; attempt += 1) {
      const status = await fetch(`${node.baseUrl}/readyz`).then(
        (res) => res.status,
        () => 0,
      );
      if (status === 200) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`the node did not become ready in 120 s:\n${node.output().slice(-4000)}`);
  };
  const call = async (node: NodeProcess, method: string, path: string, body?: object, token?: string) => {
    const started = performance.now();
    const res = await fetch(`${node.baseUrl}${path}`, {
      method,
      headers: { 'content-type': 'application/json', ...(token && { authorization: `Bearer ${token}` }) },
      ...(body && { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    return { status: res.status, text, ms: Math.round(performance.now() - started) };
  };

  test('each node answers its first write and searches within seconds of /readyz, converting no GloVe', async () => {
    const times: Record<string, number>[] = [];
    for (const [i, node] of nodes.entries()) {
      await ready(node);
      const readyAt = performance.now();
      const email = `first-${randomUUID()}@example.com`;
      const register = await call(node, 'POST', '/auth/register', {
        email,
        password: 'password-1234',
        tenant_id: randomUUID(),
      });
      assert.equal(register.status, 201, register.text);
      const login = await call(node, 'POST', '/auth/login', { email, password: 'password-1234' });
      assert.equal(login.status, 200, login.text);
      const token = (JSON.parse(login.text) as { token: string }).token;
      const write = await call(
        node,
        'POST',
        '/api/v1/documents',
        { id: `first-${i}`, title: 'Wing design', content: 'The first write of a node that just became ready.' },
        token,
      );
      assert.equal(write.status, 201, write.text);
      const hybrid = await call(node, 'POST', '/api/v1/search/hybrid', { query: 'wing design' }, token);
      assert.equal(hybrid.status, 200, hybrid.text);
      const text = await call(node, 'POST', '/api/v1/search/text', { query: 'wing' }, token);
      assert.equal(text.status, 200, text.text);
      const total = Math.round(performance.now() - readyAt);
      times.push({ register: register.ms, login: login.ms, write: write.ms, hybrid: hybrid.ms, text: text.ms, total });
      process.stdout.write(
        `# node ${'abc'[i]}: from /readyz 200 — register ${register.ms} ms, login ${login.ms} ms, first document ${write.ms} ms, first hybrid search ${hybrid.ms} ms, text search ${text.ms} ms; all ${total} ms (goal: 2000)\n`,
      );
    }
    for (const [i, t] of times.entries()) {
      assert.ok(t.total! < boundMs, `node ${'abc'[i]} took ${t.total} ms: ${JSON.stringify(t)}`);
    }
    // No request named glove-100: nothing was converted, and no converter runs.
    assert.equal(existsSync(join(modelCache, 'glove-100.bin')), false);
    assert.deepEqual(readdirSync(modelCache), []);
    // A normal start logs its expected retries as what they are: no error line (level 50) at all.
    for (const [i, node] of nodes.entries()) {
      const errors = node
        .output()
        .split('\n')
        .filter((line) => line.startsWith('{') && (JSON.parse(line) as { level?: number }).level! >= 50);
      assert.deepEqual(errors, [], `node ${'abc'[i]} logged errors`);
    }
  });
});
