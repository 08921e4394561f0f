// npm run bench:import-threads — NDJSON import throughput with IMPORT_THREADS 0, 1 and 2 in one run (issue #40).
// The documents are bench:scale's (a 512-d vector given by the client, about 60 words of Zipf text, a tag and a
// numeric field), BENCH_DOCS (20,000) of them, made before the clock starts so the client spends little CPU while
// it streams them. Each server is pinned with `taskset -c ${BENCH_CPUS}` (0,1); the setting is run BENCH_ROUNDS (2)
// times, interleaved, and the best round is kept. Prints docs/s and the ratio to the in-thread path.
// BENCH_BEFORE_MAIN (another build's server/dist/main.js, e.g. copied before a change): each setting runs on that
// build too, interleaved with this one in every round, and the ratio is to that build's in-thread rate.
// BENCH_CPU_PROF (a folder): each server runs under `node --cpu-prof` and writes its profile there.
import { Agent } from 'node:http';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServerProcess } from '../e2e/support/server-process.js';
import { random, zipfText } from './engine-fixture.js';
import { caveat, httpRequest, machine, saveResults, table } from './support.js';
import { embeddingLikeVectors, rowJson } from './vector-data.js';

const total = Number(process.env.BENCH_DOCS ?? 20_000);
const rounds = Number(process.env.BENCH_ROUNDS ?? 2);
const cpus = process.env.BENCH_CPUS ?? '0,1';
const settings = (process.env.BENCH_IMPORT_THREADS ?? '0,1,2').split(',');
const beforeMain = process.env.BENCH_BEFORE_MAIN;
const profileDir = process.env.BENCH_CPU_PROF;
const builds = beforeMain !== undefined ? ['before', 'this'] : ['this'];
const dims = 512;
const collection = 'scale';

caveat();
const { data } = embeddingLikeVectors(total, 1, dims);
const textOf = (i: number) => {
  const next = random(1_000_003 + i);
  return zipfText(next, 50 + Math.floor(next() * 21));
};
const pieces: string[] = [];
for (let i = 0; i < total; i += 200) {
  let piece = '';
  for (let j = i; j < Math.min(total, i + 200); j += 1)
    piece += `{"id":"s-${j}","primary_table":"${collection}","title":"document ${j}","content":"${textOf(j)}","tags":["t${j % 20}"],"metadata":{"bucket":${j % 100},"rank":${j}},"vector":${rowJson(data, j)}}\n`;
  pieces.push(piece);
}
const megabytes = pieces.reduce((n, p) => n + p.length, 0) / 2 ** 20;
process.stdout.write(`${total.toLocaleString('en')} documents, ${megabytes.toFixed(0)} MB of NDJSON\n`);

/** CPU seconds (user + system) of a process, or of one of its threads, from Linux /proc. */
function cpuSeconds(pid: number, thread?: number): number {
  const stat = readFileSync(thread === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${thread}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime and stime are fields 14 and 15 of stat(5), in clock ticks (100 per second on Linux).
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

interface Measure {
  rate: number;
  /** CPU of the server's main thread (the one that writes) and of the whole process, per document. */
  mainUs: number;
  allUs: number;
}

async function importOnce(threads: string, build: string): Promise<Measure> {
  const dataDir = mkdtempSync(join(tmpdir(), 'godb-bench-import-'));
  const server = await startServerProcess(
    {
      IMPORT_THREADS: threads,
      RATE_LIMIT_RPS: '1000000',
      RATE_LIMIT_BURST: '1000000',
      LOG_LEVEL: 'error',
      VECTOR_CACHE_MB: '2048',
    },
    dataDir,
    {
      prefix: ['taskset', '-c', cpus],
      ...(build === 'before' && beforeMain !== undefined && { main: beforeMain }),
      ...(profileDir !== undefined && { nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] }),
    },
  );
  const agent = new Agent({ keepAlive: true });
  let token = '';
  const send = (method: string, path: string, body?: string | AsyncIterable<string>, type = 'application/json') =>
    httpRequest(`${server.baseUrl}${path}`, {
      method,
      agent,
      body,
      headers: {
        ...(body !== undefined && { 'content-type': type }),
        ...(token && { authorization: `Bearer ${token}` }),
      },
    });
  try {
    const credentials = { email: `bench-${randomUUID()}@example.com`, password: 'password-1234' };
    await send('POST', '/auth/register', JSON.stringify({ ...credentials, tenant_id: randomUUID() }));
    token = (JSON.parse((await send('POST', '/auth/login', JSON.stringify(credentials))).body) as { token: string })
      .token;
    const created = await send(
      'POST',
      '/api/v1/collections',
      JSON.stringify({ name: collection, vectors: { v: { dimensions: dims, distance: 'cosine', storage: 'f16' } } }),
    );
    if (created.status !== 201) throw new Error(`collection: ${created.status} ${created.body}`);
    async function* body() {
      for (const piece of pieces) yield piece;
    }
    const pid = server.process.pid ?? 0;
    const main0 = cpuSeconds(pid, pid);
    const all0 = cpuSeconds(pid);
    const t = performance.now();
    const imported = await send('POST', '/api/v1/documents/import', body(), 'application/x-ndjson');
    const seconds = (performance.now() - t) / 1000;
    const mainUs = ((cpuSeconds(pid, pid) - main0) / total) * 1e6;
    const allUs = ((cpuSeconds(pid) - all0) / total) * 1e6;
    const failed = imported.body.split('\n').filter((l) => l.includes('"success":false'));
    if (imported.status !== 200 || failed.length > 0)
      throw new Error(`import: ${imported.status} ${failed.slice(0, 3).join('\n') || imported.body.slice(0, 300)}`);
    return { rate: total / seconds, mainUs, allUs };
  } finally {
    agent.destroy();
    // A profile is written at exit: SIGTERM (a graceful stop) when one is asked for.
    await server.stop(profileDir ? 'SIGTERM' : 'SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const best = new Map<string, Measure>();
const keyOf = (build: string, threads: string) => `${build} ${threads}`;
for (let round = 1; round <= rounds; round += 1) {
  for (const threads of settings) {
    for (const build of builds) {
      const m = await importOnce(threads, build);
      const label = beforeMain !== undefined ? ` (${build === 'before' ? 'BENCH_BEFORE_MAIN' : 'this build'})` : '';
      process.stdout.write(
        `  round ${round}, IMPORT_THREADS=${threads}${label}: ${Math.round(m.rate)} docs/s, server thread ${Math.round(m.mainUs)} µs/doc, all threads ${Math.round(m.allUs)} µs/doc\n`,
      );
      if (m.rate > (best.get(keyOf(build, threads))?.rate ?? 0)) best.set(keyOf(build, threads), m);
    }
  }
}
const base = (best.get(keyOf(builds[0]!, '0')) ?? best.get(keyOf(builds[0]!, settings[0]!)))?.rate ?? 1;
const rows = builds.flatMap((build) =>
  settings.map((threads) => {
    const m = best.get(keyOf(build, threads));
    return {
      ...(beforeMain !== undefined && { build: build === 'before' ? 'before' : 'this' }),
      IMPORT_THREADS: threads,
      'docs/s (best round)': Math.round(m?.rate ?? 0),
      [beforeMain !== undefined ? 'vs before, in-thread' : 'vs in-thread']: `${((m?.rate ?? 0) / base).toFixed(2)}×`,
      'server thread CPU µs/doc': Math.round(m?.mainUs ?? 0),
      'all threads CPU µs/doc': Math.round(m?.allUs ?? 0),
    };
  }),
);
process.stdout.write(`\nImport, server pinned to CPUs ${cpus}\n`);
table(rows);
saveResults('import-threads', { documents: total, cpus, rounds, machine: machine(), rows });
