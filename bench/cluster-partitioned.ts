// npm run bench:cluster:partitioned (and the second half of npm run bench:cluster) — partitioned collections (issue
// #41, decisions 0062 and 0082) against one embedded node holding everything, over HTTP, on real processes. In one
// run, at the same data size: (1) one GoDB node without NATS; (2) three nats-server (Debian's package) and 3 GoDB
// nodes; (3) three nats-server and 5 GoDB nodes. Each cluster has a fresh NATS cluster and a collection created with
// `shards: BENCH_PART_SHARDS` (6) and `replication_factor: BENCH_PART_RF` (2): every document is held by 2 nodes, so
// a node of 3 holds about 2/3 of it and a node of 5 about 2/5 (rf 3 on 3 nodes would be a full copy on each; 12
// replicas on 5 nodes are 3, 3, 2, 2, 2, so two of them hold half). Every setup gets the same BENCH_PART_DOCS
// (50,000) documents: a 64-d vector shaped like an embedding (vector-data.ts), 40 Zipf words, a tag.
// Measured per setup:
// - ingest: one NDJSON import stream per node at once, the documents split between them (one stream or three on the
//   embedded node: the same rate within 10 %); docs/s until every line was acknowledged, then until every copy was
//   applied (the documents the nodes hold add up to docs × rf), and when every vector index caught up;
// - search: the seconds the first vector and text query took (a first text query builds each node's index; one
//   answered 504 is sent again), then vector top 10 and text match QPS (BENCH_CLIENTS clients spread over the nodes,
//   closed loop, BENCH_SECONDS each; answers other than 200 counted), and on BENCH_PART_CHECKS queries of each kind,
//   asked through every node in turn, vector recall@10 against an exact scan and how far the text top 10 are the
//   embedded node's (ids, and scores rank by rank: 40-word documents often tie in BM25, and tied documents may come
//   in another order);
// - per node: the collection's documents it holds and its shard replicas (GET /api/v1/cluster); resident memory
//   (/proc/<pid>/status VmRSS) once the collection was made, once every vector was indexed (what holding the share
//   costs) and after the searches (with what they left for the collector), and its peak (VmHWM); its data folder on
//   disk (allocated blocks, as du counts); each divided by the embedded node's. The JetStream log (every stream's
//   bytes times its replicas, per NATS server) is beside it: in a deployment a node's disk is its data folder plus
//   its NATS server's share.
// Every process runs on the same 2 shared cores: the cluster rows show the cost per node of holding a share, not
// the capacity of 3 or 5 machines (more nodes on the same cores add fan-out work and no CPU).
// Knobs: BENCH_PART_DOCS, BENCH_PART_SHARDS, BENCH_PART_RF, BENCH_PART_NODES ("3,5"), BENCH_PART_CHECKS (20, at
// most 100), BENCH_SECONDS (10), BENCH_CLIENTS (6); e.g. BENCH_PART_DOCS=5000 BENCH_SECONDS=3 for a quick run
// (about 4 minutes at the defaults on this machine).
import { Agent } from 'node:http';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import type { ClusterView } from '@godb/contract';
import { startNatsCluster } from '../server/src/test-support/nats-cluster.js';
import { appliedEverywhere, appliedSeq } from '../e2e/support/cluster-nodes.js';
import { startServerProcess, type ServerProcess } from '../e2e/support/server-process.js';
import { random, zipfText, zipfWord } from './engine-fixture.js';
import { embeddingLikeVectors, groundTruth, row, rowJson } from './vector-data.js';
import {
  caveat,
  closedLoopRate,
  httpRequest,
  requestHeaders,
  saveResults,
  table,
  unthrottledServerEnv,
} from './support.js';

const docs = Number(process.env.BENCH_PART_DOCS ?? 50_000);
const shards = Number(process.env.BENCH_PART_SHARDS ?? 6);
const replicationFactor = Number(process.env.BENCH_PART_RF ?? 2);
const clusterSizes = (process.env.BENCH_PART_NODES ?? '3,5').split(',').map(Number);
const checks = Math.min(100, Number(process.env.BENCH_PART_CHECKS ?? 20));
const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const clients = Number(process.env.BENCH_CLIENTS ?? 6);
const dims = 64;
const collection = 'bench';
const seed = 2026;
const nodeNames = 'abcdefghij'.split('');
// Five nodes starting on two loaded cores can take longer than startServerProcess's 20 s each.
process.env.SERVER_READY_S ??= '90';

caveat();
process.stdout.write(
  `Partitioned collections: ${docs.toLocaleString('en')} documents (${dims}-d vectors shaped like embeddings, Zipf text) on 1 embedded node, then on ${clusterSizes.join(' and ')} GoDB nodes over 3 nats-server, ${shards} shards × replication factor ${replicationFactor}. ${clients} clients, ${seconds} s a measurement. Every process shares the same cores: per-node cost, not the capacity of separate machines.\n\n`,
);

const env = { ...unthrottledServerEnv, JWT_SECRET: 'bench-partitioned-secret-of-at-least-32-characters' };
const agent = new Agent({ keepAlive: true, maxSockets: 64 });
const mb = (bytes: number) => bytes / 2 ** 20;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const since = (t: number) => (performance.now() - t) / 1000;

/** One setup under measurement: its GoDB nodes, the tenant's token, and whether the collection is partitioned. */
interface Setup {
  readonly label: string;
  readonly nodes: readonly ServerProcess[];
  readonly names: readonly string[];
  readonly natsUrls: readonly string[];
  token: string;
}
const partitioned = (setup: Setup) => setup.natsUrls.length > 0;
/** How many nodes hold each document. */
const copiesOf = (setup: Setup) => (partitioned(setup) ? replicationFactor : 1);

interface Answer {
  readonly status: number;
  readonly body: string;
  /** The X-GoDB-Seq token (`0:17,5:42`), empty on an embedded node. */
  readonly seq: string;
}
async function send(
  server: ServerProcess,
  token: string,
  method: string,
  path: string,
  body?: string | AsyncIterable<string>,
): Promise<Answer> {
  const res = await httpRequest(`${server.baseUrl}${path}`, {
    method,
    agent,
    body,
    headers: requestHeaders(body, token),
  });
  return { status: res.status, body: res.body, seq: String(res.headers['x-godb-seq'] ?? '') };
}
async function call(server: ServerProcess, token: string, method: string, path: string, body?: unknown) {
  const res = await send(server, token, method, path, body === undefined ? undefined : JSON.stringify(body));
  if (res.status >= 300)
    throw new Error(`${method} ${path} on ${server.baseUrl}: ${res.status} ${res.body.slice(0, 500)}`);
  return { seq: res.seq, json: JSON.parse(res.body) as Record<string, unknown> };
}

// ── The data: the same documents and queries for every setup ────────────────────────────────────────────────────
/** Vectors shaped like embeddings (100 clusters, each spread along a 48-d subspace), and 100 queries of the same. */
const vectors = embeddingLikeVectors(docs, 100, dims);
const docLine = (i: number) =>
  `{"id":"d${i}","primary_table":"${collection}","title":"document ${i}","content":"${zipfText(random(seed + i), 40)}","tags":["t${i % 20}"],"vector":${rowJson(vectors.data, i)}}\n`;
/** The import's body made once, in pieces of 200 lines: no setup pays for making it while it is timed. */
const pieces = Array.from({ length: Math.ceil(docs / 200) }, (_v, p) =>
  Array.from({ length: Math.min(200, docs - p * 200) }, (_w, j) => docLine(p * 200 + j)).join(''),
);
const textQueries = Array.from({ length: 100 }, (_v, q) => `${zipfWord(20 + q)} ${zipfWord(400 + q * 7)}`);
type Kind = 'vector' | 'text';
const searchBody = (kind: Kind, q: number) =>
  kind === 'vector'
    ? { vector: Array.from(row(vectors.queries, q % 100)), primary_table: collection, limit: 10, threshold: 0 }
    : { query: textQueries[q % 100], query_type: 'match', primary_table: collection, limit: 10 };
/** The ids of the exact top 10 (cosine, every document compared) of each vector query. */
const exact = groundTruth(vectors.data, vectors.queries, 10).map((rows) => rows.map((i) => `d${i}`));

/** One result of a search: its document and score. */
interface Hit {
  readonly id: string;
  readonly score: number;
}

// ── Starting a setup ────────────────────────────────────────────────────────────────────────────────────────────
async function startEmbedded(): Promise<{ setup: Setup; stop: () => Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'godb-bench-part-embedded-'));
  const node = await startServerProcess(env, dir);
  const setup: Setup = { label: '1 node, embedded', nodes: [node], names: ['embedded'], natsUrls: [], token: '' };
  return {
    setup,
    stop: async () => {
      await node.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A fresh three-server NATS cluster and `count` GoDB nodes on it, started one after the other. */
async function startCluster(count: number): Promise<{ setup: Setup; stop: () => Promise<void> }> {
  const nats = await startNatsCluster();
  const root = mkdtempSync(join(tmpdir(), `godb-bench-part-${count}-`));
  const names = nodeNames.slice(0, count);
  const nodes: ServerProcess[] = [];
  const stop = async () => {
    await Promise.all(nodes.map((n) => n.stop()));
    await nats.stop();
    rmSync(root, { recursive: true, force: true });
  };
  try {
    for (const name of names)
      nodes.push(await startServerProcess({ ...env, NATS_URL: nats.url, NODE_ID: name }, join(root, name)));
  } catch (error) {
    await stop();
    throw error;
  }
  const label = `${count} nodes, ${shards} shards × rf ${replicationFactor}`;
  return { setup: { label, nodes, names, natsUrls: nats.urls, token: '' }, stop };
}

/** Registers a tenant's admin on the first node and logs in, once every node applied the registration. */
async function signUp(setup: Setup): Promise<void> {
  const [first] = setup.nodes as [ServerProcess];
  const credentials = { email: `bench-${randomUUID()}@example.com`, password: 'password-1234' };
  await call(first, '', 'POST', '/auth/register', { ...credentials, tenant_id: randomUUID() });
  if (partitioned(setup)) await appliedEverywhere(setup.nodes, await appliedSeq(first));
  setup.token = (await call(first, '', 'POST', '/auth/login', credentials)).json.token as string;
}

const clusterView = async (setup: Setup) =>
  (await call(setup.nodes[0]!, setup.token, 'GET', '/api/v1/cluster')).json as unknown as ClusterView;

/** Waits until the first node hears every node alive: a collection is placed on the nodes alive when it is made. */
async function everyNodeAlive(setup: Setup): Promise<void> {
  for (let attempt = 0; ; attempt += 1) {
    const alive = (await clusterView(setup)).nodes.filter((n) => n.alive).length;
    if (alive === setup.nodes.length) return;
    if (attempt === 600) throw new Error(`${alive} of ${setup.nodes.length} nodes alive after 60 s`);
    await sleep(100);
  }
}

/** Creates the bench collection (partitioned in a cluster) and waits until every node applied its creation. */
async function createCollection(setup: Setup): Promise<void> {
  const made = await call(setup.nodes[0]!, setup.token, 'POST', '/api/v1/collections', {
    name: collection,
    vectors: { default: { dimensions: dims, distance: 'cosine' } },
    ...(partitioned(setup) && { shards, replication_factor: replicationFactor }),
  });
  if (made.seq !== '') await appliedEverywhere(setup.nodes, made.seq);
}

// ── Measurements ────────────────────────────────────────────────────────────────────────────────────────────────
/** Resident memory of a server process now and at its peak (Linux /proc), in bytes. */
function memoryOf(server: ServerProcess): { now: number; peak: number } {
  const status = readFileSync(`/proc/${server.process.pid}/status`, 'utf8');
  const field = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+)`).exec(status)?.[1] ?? 0) * 1024;
  return { now: field('VmRSS'), peak: field('VmHWM') };
}

/** The bytes a folder takes on disk, as `du` counts them (allocated blocks of every file under it). */
function diskBytes(dir: string): number {
  let sum = 0;
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    const s = statSync(path);
    sum += s.isDirectory() ? diskBytes(path) : s.blocks * 512;
  }
  return sum;
}

/** The documents of the bench collection each node holds (GET /collections/<name> counts a node's own). */
const heldCounts = (setup: Setup) =>
  Promise.all(
    setup.nodes.map(
      async (n) => (await call(n, setup.token, 'GET', `/api/v1/collections/${collection}`)).json.documents as number,
    ),
  );

/** Imports `pieces[from, to)` through `server` as one NDJSON stream; every line must be acknowledged. */
async function importSlice(setup: Setup, server: ServerProcess, from: number, to: number): Promise<void> {
  async function* body() {
    for (let p = from; p < to; p += 1) yield pieces[p]!;
  }
  const res = await send(server, setup.token, 'POST', '/api/v1/documents/import', body());
  const failed = res.body.split('\n').filter((l) => l.includes('"success":false'));
  if (res.status !== 200 || failed.length > 0)
    throw new Error(
      `import on ${server.baseUrl}: ${res.status} ${failed.slice(0, 3).join('\n') || res.body.slice(0, 300)}`,
    );
}

/** Polls `done` once a second until it holds (a hang detector after `boundS`, not a timing). */
async function until(done: () => Promise<boolean>, what: string, boundS = 1800): Promise<void> {
  const start = performance.now();
  while (!(await done())) {
    if (since(start) > boundS) throw new Error(`${what}: not after ${boundS} s`);
    await sleep(1000);
  }
}

const vectorIndexLag = async (server: ServerProcess) =>
  (JSON.parse((await send(server, '', 'GET', '/readyz')).body) as { vector_indexes?: { lag: number } }).vector_indexes
    ?.lag ?? 0;

/**
 * Imports every document, one stream per node at once (the pieces split between them in order), and answers the
 * seconds until every line was acknowledged, until each node applied every copy it holds (the held documents add up
 * to docs × rf), and until every node's vector index caught up.
 */
async function ingest(setup: Setup): Promise<{ acknowledged: number; copies: number; indexed: number }> {
  const start = performance.now();
  const n = setup.nodes.length;
  await Promise.all(
    setup.nodes.map((node, k) =>
      importSlice(setup, node, Math.floor((k * pieces.length) / n), Math.floor(((k + 1) * pieces.length) / n)),
    ),
  );
  const acknowledged = since(start);
  const wanted = docs * copiesOf(setup);
  let held: number[] = [];
  await until(
    async () => (held = await heldCounts(setup)).reduce((x, y) => x + y, 0) === wanted,
    `the nodes hold ${wanted} copies (${held.join(', ')})`,
  );
  const copies = since(start);
  await until(
    async () => (await Promise.all(setup.nodes.map(vectorIndexLag))).every((lag) => lag === 0),
    'every vector index caught up',
  );
  return { acknowledged, copies, indexed: since(start) };
}

/** Query `q` of `kind` asked through `server`: the answer's status and, when 200, its top 10. */
async function search(setup: Setup, server: ServerProcess, kind: Kind, q: number) {
  const res = await send(server, setup.token, 'POST', `/api/v1/search/${kind}`, JSON.stringify(searchBody(kind, q)));
  if (res.status !== 200) return { status: res.status, body: res.body, hits: [] as Hit[] };
  const { results } = JSON.parse(res.body) as { results: { document_id: string; score: number }[] };
  return { status: res.status, body: res.body, hits: results.map((r) => ({ id: r.document_id, score: r.score })) };
}

/** The top 10 of query `q` of `kind` through `server`, which must answer 200. */
async function top(setup: Setup, server: ServerProcess, kind: Kind, q: number): Promise<Hit[]> {
  const answer = await search(setup, server, kind, q);
  if (answer.status !== 200)
    throw new Error(`${kind} search on ${server.baseUrl}: ${answer.status} ${answer.body.slice(0, 300)}`);
  return answer.hits;
}

/** The top 10 of the first `checks` queries of each kind, one after the other, query q asked through node q mod n. */
async function answers(setup: Setup): Promise<Record<Kind, Hit[][]>> {
  const of = async (kind: Kind) => {
    const all: Hit[][] = [];
    for (let q = 0; q < checks; q += 1) all.push(await top(setup, setup.nodes[q % setup.nodes.length]!, kind, q));
    return all;
  };
  return { vector: await of('vector'), text: await of('text') };
}

/** The share of the exact top 10's ids in the answers `got` (recall@10), over every vector query checked. */
function recall(got: readonly Hit[][]): string {
  const found = exact.slice(0, checks).reduce((sum, ids, q) => {
    const mine = new Set((got[q] ?? []).map((h) => h.id));
    return sum + ids.filter((id) => mine.has(id)).length;
  }, 0);
  return `${((100 * found) / Math.max(1, checks * 10)).toFixed(1)} %`;
}

/**
 * How far the answers `got` are the reference's, over every query checked: the share of the reference's ids found,
 * and the share of ranks whose score is the reference's (1e-6). Documents of equal score may come in another order
 * (each shard breaks ties its own way), so the ids can differ where the scores do not.
 */
function agreement(got: readonly Hit[][], reference: readonly Hit[][]): string {
  let ids = 0;
  let scores = 0;
  let wanted = 0;
  reference.forEach((hits, q) => {
    const mine = got[q] ?? [];
    const present = new Set(mine.map((h) => h.id));
    hits.forEach((hit, rank) => {
      if (present.has(hit.id)) ids += 1;
      if (Math.abs((mine[rank]?.score ?? Number.NaN) - hit.score) <= 1e-6) scores += 1;
    });
    wanted += hits.length;
  });
  const percent = (n: number) => `${((100 * n) / Math.max(1, wanted)).toFixed(0)} %`;
  return `${percent(ids)} / ${percent(scores)}`;
}

/**
 * The seconds until the first query of `kind` is answered, sent again while it times out (504: the first text query
 * after the writes builds each node's index), then one through every other node.
 */
async function firstQuery(setup: Setup, kind: Kind): Promise<number> {
  const start = performance.now();
  for (let attempt = 1; ; attempt += 1) {
    const answer = await search(setup, setup.nodes[0]!, kind, 0);
    if (answer.status === 200) break;
    if (answer.status !== 504 || attempt === 10)
      throw new Error(`first ${kind} search: ${answer.status} ${answer.body.slice(0, 300)}`);
  }
  const first = since(start);
  for (const node of setup.nodes.slice(1)) await top(setup, node, kind, 0);
  return first;
}

/**
 * The most answered queries per second `clients` connections reach, client c asking node c mod n, and how many
 * answered other than 200 (counted, not retried: a timeout is part of what is measured).
 */
async function queriesPerSecond(setup: Setup, kind: Kind): Promise<{ qps: number; failed: number }> {
  let answered = 0;
  let failed = 0;
  const rate = await closedLoopRate(clients, seconds, async (c, turn) => {
    const answer = await search(setup, setup.nodes[c % setup.nodes.length]!, kind, c + turn * clients);
    if (answer.status === 200) answered += 1;
    else failed += 1;
  });
  return { qps: (rate * answered) / Math.max(1, answered + failed), failed };
}

/** The shard replicas each node serves (a node's name → count); none embedded. */
async function replicasHeld(setup: Setup): Promise<Map<string, number>> {
  const held = new Map<string, number>();
  if (!partitioned(setup)) return held;
  const placed = (await clusterView(setup)).collections.find((c) => c.name === collection);
  for (const shard of placed?.shards ?? [])
    for (const node of shard.replicas) held.set(node, (held.get(node) ?? 0) + 1);
  return held;
}

/** The bytes of every JetStream stream (the log, its KV buckets), summed over its replicas, per NATS server. */
async function natsBytesPerServer(urls: readonly string[]): Promise<number> {
  if (urls.length === 0) return 0;
  const nc = await connect({ servers: [...urls], name: 'godb-bench-log-size' });
  try {
    let total = 0;
    for await (const info of (await jetstreamManager(nc)).streams.list())
      total += info.state.bytes * info.config.num_replicas;
    return total / urls.length;
  } finally {
    await nc.close();
  }
}

// ── One setup, measured ─────────────────────────────────────────────────────────────────────────────────────────
interface NodeFigures {
  readonly name: string;
  readonly replicas: number | undefined;
  readonly documents: number;
  /** Resident bytes once the collection was made, once every vector was indexed, and after the searches. */
  readonly rssBefore: number;
  readonly rssIngested: number;
  readonly rss: number;
  readonly peak: number;
  readonly disk: number;
}
interface Measured {
  readonly setup: string;
  readonly nodes: NodeFigures[];
  readonly ingest: { acknowledged: number; copies: number; indexed: number };
  /** Seconds until the first query of each kind was answered (after the ingest). */
  readonly first: Record<Kind, number>;
  readonly qps: Record<Kind, { qps: number; failed: number }>;
  readonly answers: Record<Kind, Hit[][]>;
  readonly natsBytes: number;
}

async function measure(setup: Setup): Promise<Measured> {
  await signUp(setup);
  if (partitioned(setup)) await everyNodeAlive(setup);
  await createCollection(setup);
  const before = setup.nodes.map((n) => memoryOf(n).now);
  process.stdout.write(`  ingesting ${docs.toLocaleString('en')} documents through ${setup.nodes.length} stream(s)…\n`);
  const ingested = await ingest(setup);
  const ingestedRss = setup.nodes.map((n) => memoryOf(n).now);
  process.stdout.write(
    `  acknowledged in ${ingested.acknowledged.toFixed(1)} s, every copy applied at ${ingested.copies.toFixed(1)} s, indexed at ${ingested.indexed.toFixed(1)} s; searching…\n`,
  );
  const first = { vector: await firstQuery(setup, 'vector'), text: await firstQuery(setup, 'text') };
  const qps = { vector: await queriesPerSecond(setup, 'vector'), text: await queriesPerSecond(setup, 'text') };
  const checked = await answers(setup);
  const [held, replicas, natsBytes] = [
    await heldCounts(setup),
    await replicasHeld(setup),
    await natsBytesPerServer(setup.natsUrls),
  ];
  const nodes = setup.nodes.map((node, i) => {
    const memory = memoryOf(node);
    const name = setup.names[i]!;
    return {
      name,
      replicas: partitioned(setup) ? (replicas.get(name) ?? 0) : undefined,
      documents: held[i]!,
      rssBefore: before[i]!,
      rssIngested: ingestedRss[i]!,
      rss: memory.now,
      peak: memory.peak,
      disk: diskBytes(node.dataDir),
    };
  });
  return { setup: setup.label, nodes, ingest: ingested, first, qps, answers: checked, natsBytes };
}

async function run(start: () => Promise<{ setup: Setup; stop: () => Promise<void> }>): Promise<Measured> {
  const t = performance.now();
  const { setup, stop } = await start();
  process.stdout.write(`${setup.label}: started in ${since(t).toFixed(1)} s\n`);
  try {
    return await measure(setup);
  } finally {
    await stop();
  }
}

// ── Tables ──────────────────────────────────────────────────────────────────────────────────────────────────────
const ratio = (x: number, reference: number) => (x / reference).toFixed(2);

/** Queries per second: one decimal below 10. */
const perSecond = (x: number) => (x < 10 ? x.toFixed(1) : Math.round(x));

function ingestRow(m: Measured): Record<string, string | number> {
  return {
    setup: m.setup,
    'import streams': m.nodes.length,
    'docs/s acknowledged': Math.round(docs / m.ingest.acknowledged),
    'docs/s to every copy': Math.round(docs / m.ingest.copies),
    'every vector indexed after s': m.ingest.indexed.toFixed(1),
  };
}

function searchRow(m: Measured, reference: Measured): Record<string, string | number> {
  return {
    setup: m.setup,
    'first vector / text query s': `${m.first.vector.toFixed(2)} / ${m.first.text.toFixed(2)}`,
    'vector QPS': perSecond(m.qps.vector.qps),
    'vector ÷ embedded': ratio(m.qps.vector.qps, reference.qps.vector.qps),
    'text QPS': perSecond(m.qps.text.qps),
    'text ÷ embedded': ratio(m.qps.text.qps, reference.qps.text.qps),
    'not 200 (vector / text)': `${m.qps.vector.failed} / ${m.qps.text.failed}`,
    'vector recall@10': recall(m.answers.vector),
    'text top 10 = embedded (ids / scores)': agreement(m.answers.text, reference.answers.text),
  };
}

function nodeRows(m: Measured, reference: NodeFigures): Record<string, string | number>[] {
  return m.nodes.map((n) => ({
    setup: m.setup,
    node: n.name,
    'shard replicas': n.replicas ?? '-',
    documents: n.documents,
    'share of all': `${((100 * n.documents) / docs).toFixed(1)} %`,
    'RSS before ingest MB': Math.round(mb(n.rssBefore)),
    'RSS after ingest MB': Math.round(mb(n.rssIngested)),
    'after ingest ÷ embedded': ratio(n.rssIngested, reference.rssIngested),
    'RSS after searches MB': Math.round(mb(n.rss)),
    'after searches ÷ embedded': ratio(n.rss, reference.rss),
    'peak RSS MB': Math.round(mb(n.peak)),
    'disk MB': mb(n.disk).toFixed(1),
    'disk ÷ embedded': ratio(n.disk, reference.disk),
  }));
}

function summaryRow(m: Measured, reference: NodeFigures): Record<string, string | number> {
  const sum = (pick: (n: NodeFigures) => number) => m.nodes.reduce((total, n) => total + pick(n), 0);
  const mean = (pick: (n: NodeFigures) => number) => sum(pick) / m.nodes.length;
  const share = (documents: number) => `${((100 * documents) / docs).toFixed(1)} %`;
  return {
    setup: m.setup,
    'mean share of docs': share(mean((n) => n.documents)),
    'largest share': share(Math.max(...m.nodes.map((n) => n.documents))),
    'mean RSS after ingest ÷ embedded': ratio(
      mean((n) => n.rssIngested),
      reference.rssIngested,
    ),
    'after searches ÷ embedded': ratio(
      mean((n) => n.rss),
      reference.rss,
    ),
    'mean RSS growth by the ingest MB': Math.round(mb(mean((n) => n.rssIngested - n.rssBefore))),
    'mean disk ÷ embedded': ratio(
      mean((n) => n.disk),
      reference.disk,
    ),
    'all nodes disk ÷ embedded': ratio(
      sum((n) => n.disk),
      reference.disk,
    ),
    'NATS log MB per server': m.natsBytes === 0 ? '-' : mb(m.natsBytes).toFixed(1),
  };
}

// ── The run ─────────────────────────────────────────────────────────────────────────────────────────────────────
const started = performance.now();
const measured: Measured[] = [];
try {
  measured.push(await run(startEmbedded));
  for (const count of clusterSizes) measured.push(await run(() => startCluster(count)));
} finally {
  agent.destroy();
}
const [embedded] = measured as [Measured];
const reference = embedded.nodes[0]!;
const ingestRows = measured.map(ingestRow);
const searchRows = measured.map((m) => searchRow(m, embedded));
const perNode = measured.flatMap((m) => nodeRows(m, reference));
const summary = measured.map((m) => summaryRow(m, reference));
process.stdout.write('\nIngest\n');
table(ingestRows);
process.stdout.write('\nSearch\n');
table(searchRows);
process.stdout.write('\nPer node (÷ embedded: the one node holding everything)\n');
table(perNode);
process.stdout.write('\nPer setup\n');
table(summary);
process.stdout.write(`\nWhole run: ${since(started).toFixed(0)} s\n`);
saveResults('cluster-partitioned', {
  documents: docs,
  dims,
  shards,
  replication_factor: replicationFactor,
  clients,
  seconds,
  checked_queries: checks,
  ingest: ingestRows,
  search: searchRows,
  nodes: perNode,
  summary,
});
