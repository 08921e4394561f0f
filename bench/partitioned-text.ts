// npm run bench:partitioned-text — what the dfs round of a partitioned collection's text search costs (issue #41,
// decision 0076), in process on loopback: three GoDB nodes on three nats-server, a collection of BENCH_DOCS (300)
// documents partitioned `shards: 6, replication_factor: 2`, and the same documents on one embedded node (the local
// reference, in the same process). BENCH_QUERIES (100) sequential requests each, through node a and on the embedded
// node: text search (on the cluster two rounds: statistics, then ranking) and count (one round). One round ≈
// count(partitioned) − count(local); the dfs round ≈ text(partitioned) − text(local) − one round. Every node shares
// the same 2 cores: the numbers are the cost of the trips, not of three machines.
import { random, zipfText } from './engine-fixture.js';
import { caveat, saveResults, table } from './support.js';
import { call, startPartitionedPair, writeBoth } from '../server/src/test-support/partitioned-pair.js';

const docs = Number(process.env.BENCH_DOCS ?? 300);
const queries = Number(process.env.BENCH_QUERIES ?? 100);

caveat();
const next = random(2026);
const documents = (table: string) =>
  Array.from({ length: docs }, (_, i) => ({
    id: `d${i}`,
    title: zipfText(next, 6, 2_000),
    content: zipfText(next, 40, 2_000),
    primary_table: table,
  }));
const pair = await startPartitionedPair('bench-ptext');
try {
  process.stdout.write(`Writing ${docs} documents (partitioned, and on the embedded node) …\n`);
  await writeBoth(pair, { name: 'parted' }, { shards: 6, replication_factor: 2 }, documents('parted'), 2);
  const a = pair.nodes[0]!;
  const single = pair.single;
  const words = Array.from({ length: queries }, () => zipfText(next, 2, 500));
  const time = async (local: boolean, url: string, body: (i: number) => object) => {
    const ms: number[] = [];
    for (let i = 0; i < queries; i += 1) {
      const started = performance.now();
      const res = await (local
        ? call(single, 'POST', url, pair.alone.token, body(i))
        : call(a, 'POST', url, pair.tenant.token, body(i)));
      ms.push(performance.now() - started);
      if (res.status !== 200) throw new Error(`${url}: ${res.status} ${res.raw}`);
    }
    ms.sort((x, y) => x - y);
    return { p50: ms[Math.floor(ms.length / 2)]!, p90: ms[Math.floor(ms.length * 0.9)]! };
  };
  const text = (i: number) => ({ query: words[i], query_type: 'match', primary_table: 'parted', limit: 10 });
  const count = () => ({ primary_table: 'parted' });
  const results = {
    text_partitioned: await time(false, '/api/v1/search/text', text),
    text_local: await time(true, '/api/v1/search/text', text),
    count_partitioned: await time(false, '/api/v1/documents/count', count),
    count_local: await time(true, '/api/v1/documents/count', count),
  };
  const round = results.count_partitioned.p50 - results.count_local.p50;
  const dfs = results.text_partitioned.p50 - results.text_local.p50 - round;
  table(
    Object.entries(results).map(([what, r]) => ({
      what,
      'p50 ms': r.p50.toFixed(2),
      'p90 ms': r.p90.toFixed(2),
      'p50 / local text': (r.p50 / results.text_local.p50).toFixed(2),
    })),
  );
  process.stdout.write(`\nOne fan-out round ≈ ${round.toFixed(2)} ms (p50); the dfs round ≈ ${dfs.toFixed(2)} ms.\n`);
  saveResults('partitioned-text', { docs, queries, ...results, round_ms: round, dfs_ms: dfs });
} finally {
  await pair.close();
}
