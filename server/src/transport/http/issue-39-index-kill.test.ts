import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { seededRandom } from '../../test-support/fuzz-inputs.js';
import { startNodeProcess, type NodeProcess } from '../../test-support/node-process.js';

// Issue #39: field indexes survive kill -9. A server process (main.ts, as `npm start` runs it) holds a collection
// with one ready index and a second one declared a moment before the kill, writes and deletes acknowledged since;
// killed with SIGKILL and started again on the same data folder, its indexes are ready again and answer every
// acknowledged write, and filtered searches take their allowed documents from them.

const dir = mkdtempSync(join(tmpdir(), 'godb-index-kill-'));
const env = {
  DATA_DIR: dir,
  JWT_SECRET: 'a-secret-for-the-index-kill-test-of-32-chars',
  RATE_LIMIT_RPS: '100000',
  RATE_LIMIT_BURST: '100000',
};
const nodes: NodeProcess[] = [];
after(async () => {
  await Promise.all(nodes.map((node) => node.stop()));
  rmSync(dir, { recursive: true, force: true });
});

async function ready(node: NodeProcess): Promise<void> {
  for (let attempt = 0; attempt < 1200; attempt += 1) {
    const status = await fetch(`${node.baseUrl}/readyz`).then(
      (res) => res.status,
      () => 0,
    );
    if (status === 200) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the node did not become ready in 120 s:\n${node.output().slice(-4000)}`);
}

type Body = Record<string, unknown>;
async function call(node: NodeProcess, method: string, path: string, token?: string, body?: unknown) {
  const res = await fetch(`${node.baseUrl}${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...(token && { authorization: `Bearer ${token}` }) },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : {}) as Body, text };
}

const total = 2500; // above the exact-scan size: the HNSW path, where the allowed set decides
const next = seededRandom(3939);

test('kill -9 keeps the field indexes: ready again at restart, every acknowledged write in them', async () => {
  const first = await startNodeProcess(env);
  nodes.push(first);
  await ready(first);
  const email = `kill-${randomUUID()}@example.com`;
  const registered = await call(first, 'POST', '/auth/register', undefined, {
    email,
    password: 'password-1234',
    tenant_id: randomUUID(),
  });
  assert.equal(registered.status, 201, registered.text);
  const login = async (node: NodeProcess) => {
    const res = await call(node, 'POST', '/auth/login', undefined, { email, password: 'password-1234' });
    assert.equal(res.status, 200, res.text);
    return res.body.token as string;
  };
  let token = await login(first);
  const created = await call(first, 'POST', '/api/v1/collections', token, {
    name: 'shop',
    vectors: { v: { dimensions: 4 } },
    indexes: { 'metadata.sku': 'integer' },
  });
  assert.equal(created.status, 201, created.text);
  // The model of what was acknowledged: sku and price per live document.
  const live = new Map<string, { sku: number; price: number }>();
  const write = async (node: NodeProcess, from: number, count: number) => {
    const docs = Array.from({ length: count }, (_v, j) => {
      const n = from + j;
      const metadata = { sku: n % 50, price: Math.round(next() * 1000) / 10 };
      return { id: `k-${n}`, primary_table: 'shop', vector: [next(), next(), next(), next() + 0.01], metadata };
    });
    const res = await call(node, 'POST', '/api/v1/documents/batch', token, docs);
    assert.equal(res.status, 200, res.text.slice(0, 300));
    for (const d of docs) live.set(d.id, d.metadata);
  };
  for (let i = 0; i < total; i += 500) await write(first, i, 500);

  // A second index declared, then writes and a delete acknowledged while it builds: then the crash.
  const declared = await call(first, 'PATCH', '/api/v1/collections/shop', token, {
    indexes: { 'metadata.sku': 'integer', 'metadata.price': 'float' },
  });
  assert.equal(declared.status, 200, declared.text);
  await write(first, total, 100);
  const deleted = await call(first, 'POST', '/api/v1/documents/delete', token, {
    primary_table: 'shop',
    filter: [{ field: 'metadata.sku', operator: 'eq', value: 7 }],
  });
  assert.equal(deleted.status, 200, deleted.text);
  for (const [id, m] of live) if (m.sku === 7) live.delete(id);
  assert.equal(deleted.body.deleted, total / 50 + 2);
  await first.kill('SIGKILL');

  const second = await startNodeProcess(env);
  nodes.push(second);
  await ready(second);
  token = await login(second);
  let info: Record<string, { state: string; documents: number }> = {};
  for (let waited = 0; ; waited += 1) {
    info = (await call(second, 'GET', '/api/v1/collections/shop', token)).body.field_indexes as typeof info;
    if (info && Object.values(info).length === 2 && Object.values(info).every((i) => i.state === 'ready')) break;
    assert.ok(waited < 1500, `the indexes are ready again: ${JSON.stringify(info)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  assert.equal(info['metadata.sku']!.documents, live.size);
  assert.equal(info['metadata.price']!.documents, live.size);

  const cases: { filter: unknown; allow: (m: { sku: number; price: number }) => boolean }[] = [
    { filter: [{ field: 'metadata.sku', operator: 'in', value: [3, 7] }], allow: (m) => m.sku === 3 || m.sku === 7 },
    {
      filter: [
        { field: 'metadata.price', operator: 'gte', value: 20 },
        { field: 'metadata.price', operator: 'lt', value: 22 },
      ],
      allow: (m) => m.price >= 20 && m.price < 22,
    },
  ];
  for (const { filter, allow } of cases) {
    const expected = [...live.values()].filter(allow).length;
    const counted = await call(second, 'POST', '/api/v1/documents/count', token, { primary_table: 'shop', filter });
    assert.equal(counted.body.count, expected, `count ${JSON.stringify(filter)}`);
    // The vector index loads its copies in the background; then the allowed set comes from the indexes.
    for (let waited = 0; ; waited += 1) {
      const res = await call(second, 'POST', '/api/v1/search/vector', token, {
        vector: [0.5, 0.5, 0.5, 0.5],
        primary_table: 'shop',
        threshold: 0,
        filters: filter,
        explain: true,
      });
      assert.equal(res.status, 200, res.text);
      const plan = res.body.plan as { filter: string; allowed?: number };
      if (plan.filter === 'index') {
        assert.equal(plan.allowed, expected, JSON.stringify(filter));
        break;
      }
      assert.ok(waited < 1500, JSON.stringify(plan));
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
});
