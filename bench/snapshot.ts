// npm run bench:snapshot — snapshot and restore times of a node holding BENCH_DOCS documents (default 100,000),
// each with a 64-dimension vector of its own and ~40 words of text, through the engine itself: a whole-node
// snapshot and a tenant snapshot taken while the node is open, `godb restore` into an empty folder, a tenant
// restore on the running engine (in place of the tenant's rows) and into a fresh node (no rows to delete), and the
// first vector query after each — beside the time an HNSW rebuild takes, which is what a restore that used its
// index files as they are does not pay. Each step also as documents per second.
import { createReadStream, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { clientSpaceKey } from '../server/src/engine/collections/vector-space.js';
import { openEngine } from '../server/src/engine/engine.js';
import { restoreSnapshot } from '../server/src/engine/snapshots/restore.js';
import { benchEngine, benchViewer, random, syntheticText } from './engine-fixture.js';
import { caveat, saveResults, table } from './support.js';

caveat();
const total = Number(process.env.BENCH_DOCS ?? 100_000);
const dims = 64;
const next = random(11);
const tenant = benchViewer.tenantId;
const space = clientSpaceKey('documents', 'default');
const seconds = (since: number) => (performance.now() - since) / 1000;
const vector = () => Array.from({ length: dims }, () => next() * 2 - 1);

const { engine, dispose } = benchEngine();
let started = performance.now();
for (let n = 0; n < total; n += 1000) {
  const docs = Array.from({ length: Math.min(1000, total - n) }, (_v, i) => ({
    id: `doc-${n + i}`,
    title: `Report ${n + i}`,
    content: syntheticText(next, 40),
    vector: vector(),
    embedding_options: { enabled: false },
  }));
  await engine.add(benchViewer, docs, (i) => `docs[${i}]`);
}
const ingest = seconds(started);
started = performance.now();
engine.vectors.rebuild(tenant, space, dims);
const rebuild = seconds(started);
process.stdout.write(`${total} documents written in ${ingest.toFixed(1)} s; HNSW built in ${rebuild.toFixed(1)} s\n`);

const snapshots = engine.snapshots!;
started = performance.now();
const node = await snapshots.create(snapshots.newId());
const nodeSnapshot = seconds(started);
started = performance.now();
const tenantManifest = await snapshots.create(snapshots.newId(), () => {}, tenant);
const tenantSnapshot = seconds(started);

// `godb restore` into an empty folder, then the first vector query of a node opened on it.
const restoredDir = mkdtempSync(join(tmpdir(), 'godb-bench-restored-'));
const archiveFile = (id: string) => join(snapshots.location, `${id}.tar`);
started = performance.now();
await restoreSnapshot(createReadStream(archiveFile(node.id)), restoredDir);
const offlineRestore = seconds(started);
const restored = openEngine({ dataDir: restoredDir, embeddings: { ...benchEmbeddings(restoredDir) } });
started = performance.now();
await restored.vectors.ready(tenant, space, dims);
const firstQueryOffline = seconds(started);
const offlineSource = restored.vectors.stats(tenant, space, dims).source;
await restored.close();
rmSync(restoredDir, { recursive: true, force: true });

// A tenant restore on the running engine: check (unpack + checksums), then the swap.
started = performance.now();
const staged = await engine.restore!.stage(createReadStream(archiveFile(tenantManifest.id)), {
  tenantId: tenant,
  keepTenants: [],
  trustIndexFiles: true,
});
const stage = seconds(started);
started = performance.now();
await engine.restore!.apply(staged);
const apply = seconds(started);
started = performance.now();
await engine.vectors.ready(tenant, space, dims);
const firstQueryOnline = seconds(started);
const onlineSource = engine.vectors.stats(tenant, space, dims).source;

// The same tenant snapshot restored into a node where the tenant holds nothing yet (no rows to delete first).
const empty = benchEngine();
started = performance.now();
const stagedEmpty = await empty.engine.restore!.stage(createReadStream(archiveFile(tenantManifest.id)), {
  tenantId: tenant,
  keepTenants: [],
  trustIndexFiles: true,
});
await empty.engine.restore!.apply(stagedEmpty);
const intoEmpty = seconds(started);
started = performance.now();
await empty.engine.vectors.ready(tenant, space, dims);
const firstQueryEmpty = seconds(started);
const emptySource = empty.engine.vectors.stats(tenant, space, dims).source;
await empty.dispose();
await dispose();

const megabytes = (bytes: number) => (bytes / 2 ** 20).toFixed(1);
const rate = (s: number) => Math.round(total / s).toLocaleString('en-US');
const step = (name: string, s: number, bytes?: number, perDocument = true) => ({
  step: name,
  seconds: s.toFixed(2),
  'documents/s': perDocument ? rate(s) : '',
  'archive MiB': bytes === undefined ? '' : megabytes(bytes),
});
const rows = [
  step('node snapshot (online backup + index files + tar)', nodeSnapshot, node.bytes),
  step('tenant snapshot (row copy by rowid ranges + index files + tar)', tenantSnapshot, tenantManifest.bytes),
  step('godb restore into an empty folder (checksums + move)', offlineRestore),
  step(`  first vector query after it (index ${offlineSource ?? '?'})`, firstQueryOffline, undefined, false),
  step('online tenant restore: unpack + checksums', stage),
  step('online tenant restore: replace the rows in ~40 ms slices + index files', apply),
  step(`  first vector query after it (index ${onlineSource ?? '?'})`, firstQueryOnline, undefined, false),
  step('online tenant restore into an empty tenant (unpack + rows + index files)', intoEmpty),
  step(`  first vector query after it (index ${emptySource ?? '?'})`, firstQueryEmpty, undefined, false),
  step('HNSW rebuild from the store (what a restore avoids)', rebuild, undefined, false),
];
process.stdout.write(`\n${total} documents, ${dims}-dimension vectors:\n\n`);
table(rows);
saveResults('snapshot', { documents: total, dims, ingest_s: ingest, rows });

function benchEmbeddings(dataDir: string) {
  return {
    defaultModel: 'use-lite-512',
    modelsDir: join(dataDir, 'models'),
    modelCacheDir: join(tmpdir(), 'godb-test-model-cache'),
    workerPoolSize: 1,
    queueLimit: 10,
    cacheSize: 10,
    remote: [],
    http: { timeoutMs: 1000, retries: 0, sleep: async () => {} },
  };
}
