// bench:compare's write measurement (run by bench/compare.ts, once per ref and round): bench:cluster's acknowledged
// writes/s, on the server of `--root`: single 64-d documents with about 40 Zipf words and a tag, each with an
// Idempotency-Key and sent again on 503, from BENCH_CLIENTS (6) closed-loop clients for BENCH_SECONDS (10), first
// to one embedded node, then spread over three nodes on a three-server NATS JetStream cluster (real nats-server
// processes, all on the same cores), as bench/cluster.ts measures them. Its searches, replica lag, failover and
// catch-up are left out: they are not write throughput, and take most of its run.
import { Agent } from 'node:http';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startNatsCluster } from '../server/src/test-support/nats-cluster.js';
import { appliedEverywhere } from '../e2e/support/cluster-nodes.js';
import { type ServerProcess } from '../e2e/support/server-process.js';
import { random, zipfText } from './engine-fixture.js';
import { printResult, rootArgument, startServerAt } from './compare-server.js';
import { closedLoopRate, httpRequest, unthrottledServerEnv } from './support.js';

const root = rootArgument(process.argv.slice(2));
const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const clients = Number(process.env.BENCH_CLIENTS ?? 6);
const dims = 64;
const collection = 'bench';
const seed = 2026;
const env = {
  ...unthrottledServerEnv,
  JWT_SECRET: 'bench-cluster-secret-of-at-least-32-characters',
};
const agent = new Agent({ keepAlive: true, maxSockets: 64 });
let token = '';

async function send(server: ServerProcess, method: string, path: string, body?: string, headers = {}) {
  const res = await httpRequest(`${server.baseUrl}${path}`, {
    method,
    agent,
    body,
    headers: {
      ...(body !== undefined && { 'content-type': 'application/json' }),
      ...(token && { authorization: `Bearer ${token}` }),
      ...headers,
    },
  });
  return { status: res.status, body: res.body, seq: String(res.headers['x-godb-seq'] ?? '') };
}
async function call(server: ServerProcess, method: string, path: string, body: unknown) {
  const res = await send(server, method, path, JSON.stringify(body));
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${res.body.slice(0, 500)}`);
  return { ...res, json: JSON.parse(res.body) as Record<string, unknown> };
}

/** As bench/cluster.ts: document i with a deterministic 64-d vector, about 40 Zipf words and a tag. */
function docOf(id: string, i: number) {
  const next = random(seed * 1_000_003 + i);
  return {
    id,
    primary_table: collection,
    title: `document ${i}`,
    content: zipfText(random(seed + i), 40),
    tags: [`t${i % 20}`],
    vector: Array.from({ length: dims }, () => Math.round((next() * 2 - 1) * 1e4) / 1e4),
  };
}

/** A new tenant and its collection, applied on every node before the writes start. */
async function setUp(nodes: readonly ServerProcess[]): Promise<void> {
  const first = nodes[0]!;
  const credentials = { email: `bench-${randomUUID()}@example.com`, password: 'password-1234' };
  token = '';
  await call(first, 'POST', '/auth/register', { ...credentials, tenant_id: randomUUID() });
  token = (await call(first, 'POST', '/auth/login', credentials)).json.token as string;
  const made = await call(first, 'POST', '/api/v1/collections', {
    name: collection,
    vectors: { default: { dimensions: dims, distance: 'cosine' } },
  });
  if (made.seq !== '') await appliedEverywhere(nodes, made.seq);
}

/** Acknowledged single-document writes per second, `clients` at once spread over `nodes`. */
async function writesPerSecond(nodes: readonly ServerProcess[], label: string): Promise<number> {
  let written = 0;
  return closedLoopRate(clients, seconds, async (c) => {
    const i = written++;
    const key = randomUUID();
    const body = JSON.stringify(docOf(`${label}-${i}`, i));
    for (;;) {
      const res = await send(nodes[c % nodes.length]!, 'POST', '/api/v1/documents', body, {
        'idempotency-key': key,
      }).catch(() => null);
      if (res?.status === 201) return;
      if (res && res.status !== 503) throw new Error(`write ${label}-${i}: ${res.status} ${res.body.slice(0, 300)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  });
}

let embedded = 0;
{
  const dir = mkdtempSync(join(tmpdir(), 'godb-bench-compare-embedded-'));
  const node = await startServerAt(root, env, dir);
  try {
    await setUp([node]);
    embedded = await writesPerSecond([node], 'embedded');
  } finally {
    await node.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
process.stdout.write(`embedded: ${Math.round(embedded)} writes/s\n`);

const nats = await startNatsCluster();
const dataRoot = mkdtempSync(join(tmpdir(), 'godb-bench-compare-cluster-'));
const nodes: ServerProcess[] = [];
let clustered = 0;
try {
  for (const name of ['a', 'b', 'c'])
    nodes.push(await startServerAt(root, { ...env, NATS_URL: nats.url, NODE_ID: name }, join(dataRoot, name)));
  await setUp(nodes);
  clustered = await writesPerSecond(nodes, 'cluster');
} finally {
  await Promise.all(nodes.map((n) => n.stop()));
  await nats.stop();
  agent.destroy();
  rmSync(dataRoot, { recursive: true, force: true });
}
process.stdout.write(`3 nodes, NATS R3: ${Math.round(clustered)} writes/s\n`);
printResult({
  'cluster embedded writes/s': { value: embedded, higherIsBetter: true },
  'cluster 3 nodes NATS writes/s': { value: clustered, higherIsBetter: true },
});
