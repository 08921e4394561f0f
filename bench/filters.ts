// npm run bench:filters — filtered vector search with and without field indexes (issue #39), in process: one
// collection of BENCH_DOCS (50,000) documents with their own 64-d vectors (clustered, unit length) and
// metadata.tag (keyword, 1,000 values), metadata.price (float) and created_at (integer). Each query carries a filter
// value never used before in the run, at selectivities 0.1 %, 1 %, 10 %, 50 % and a nested group: first measured
// without indexes (the filter is first seen, so the search checks HNSW candidates one by one), then with the three
// fields indexed (the allowed set comes from the postings). recall@10 against brute force over the allowed set,
// p50/p99 and QPS beside unfiltered in the same run, the build time of the indexes and their disk per document.
// Documents are private but 0.1 % (public), and 5 % are shared with one user: the same searches unfiltered as
// that user (ACL 5 %) and as a user who may read the public ones only (ACL 0.1 %) show the access rule's plan.
// BENCH_DOCS and BENCH_QUERIES (50 per filter) change the size. About 5 minutes on 2 shared cores, most of it the
// searches without indexes (a selective first-seen filter reads thousands of candidates, then every document).
import { parseFilters } from '../server/src/engine/search/filters.js';
import type { Scope } from '../server/src/engine/search/scope.js';
import { benchEngine, benchViewer } from './engine-fixture.js';
import { caveat, saveResults, table } from './support.js';
import { clusteredVectors, row } from './vector-data.js';

const n = Number(process.env.BENCH_DOCS ?? 50_000);
const queryCount = Number(process.env.BENCH_QUERIES ?? 50);
const dims = 64;
const k = 10;
const name = 'filtered';
const tenantId = benchViewer.tenantId;

const tagOf = (i: number) => `t${(i * 7) % 1000}`;
const priceOf = (i: number) => ((i * 7919) % 100_000) / 100; // 0 to 999.99, spread evenly
const createdOf = (i: number) => 1_700_000_000 + i;

const reader = { ...benchViewer, userId: 'reader' };
const stranger = { ...benchViewer, userId: 'stranger' };
const isPublic = (i: number) => i % 1000 === 0;
const sharedWithReader = (i: number) => i % 20 === 1;

interface Case {
  readonly label: string;
  /** Who searches (the owner of every document when absent), and which documents that viewer may read. */
  readonly viewer?: { readonly who: typeof benchViewer; readonly reads: (i: number) => boolean };
  /** The filter of query `q` (its values used by no other query) and the predicate brute force applies. */
  readonly filter: (q: number) => { raw: unknown; allow: (i: number) => boolean };
}
const cases: Case[] = [
  { label: 'none', filter: () => ({ raw: undefined, allow: () => true }) },
  {
    label: '0.1 % tag',
    filter: (q) => {
      const tag = `t${(q * 13) % 1000}`;
      return { raw: [{ field: 'metadata.tag', operator: 'eq', value: tag }], allow: (i) => tagOf(i) === tag };
    },
  },
  ...[1, 10, 50].map((percent) => ({
    label: `${percent} % price`,
    filter: (q: number) => {
      const width = percent * 10;
      // A value no other query used: the offset of the phase in the millionths (a whole offset would shift the
      // range past the prices, making its share smaller than the label says).
      const from = ((q * 9.73) % (1000 - width)) + q / 1e7;
      return {
        raw: [
          { field: 'metadata.price', operator: 'gte', value: from },
          { field: 'metadata.price', operator: 'lt', value: from + width },
        ],
        allow: (i: number) => priceOf(i) >= from && priceOf(i) < from + width,
      };
    },
  })),
  {
    label: 'nested ~0.14 %',
    filter: (q) => {
      const [a, b] = [`t${(q * 17) % 1000}`, `t${(q * 17 + 500) % 1000}`];
      const since = createdOf(Math.floor(((q * 0.37) % 0.5) * n));
      return {
        raw: {
          must: [{ field: 'created_at', operator: 'gte', value: since }],
          should: [
            { field: 'metadata.tag', operator: 'eq', value: a },
            { field: 'metadata.tag', operator: 'in', value: [b] },
          ],
          must_not: [{ field: 'metadata.price', operator: 'lt', value: 100 }],
        },
        allow: (i: number) => createdOf(i) >= since && (tagOf(i) === a || tagOf(i) === b) && !(priceOf(i) < 100),
      };
    },
  },
  {
    label: 'ACL 5 % (user)',
    viewer: { who: reader, reads: (i) => isPublic(i) || sharedWithReader(i) },
    filter: () => ({ raw: undefined, allow: () => true }),
  },
  {
    label: 'ACL 0.1 % (user)',
    viewer: { who: stranger, reads: isPublic },
    filter: () => ({ raw: undefined, allow: () => true }),
  },
];

caveat();
process.stdout.write(`${n} documents of ${dims}-d vectors, ${queryCount} queries per filter\n`);
const { data, queries } = clusteredVectors(n, queryCount, dims);
const { engine, dispose } = benchEngine();
await engine.log.submit({
  kind: 'create-collection',
  tenantId,
  body: { name, vectors: { v: { dimensions: dims, distance: 'cosine', storage: 'f16' } } },
});
let t = performance.now();
for (let from = 0; from < n; from += 1000) {
  const docs = Array.from({ length: Math.min(1000, n - from) }, (_v, j) => {
    const i = from + j;
    return {
      id: `d${i}`,
      title: `d${i}`,
      primary_table: name,
      vector: Array.from(row(data, i)),
      created_at: createdOf(i),
      metadata: { tag: tagOf(i), price: priceOf(i) },
      visibility: isPublic(i) ? ('public' as const) : ('private' as const),
      ...(sharedWithReader(i) && { acl: [{ user_id: reader.userId, role: 'view' as const }] }),
    };
  });
  await engine.add(benchViewer, docs, (i) => `body[${i}]`);
}
while (engine.vectors.lag() > 0) await new Promise((resolve) => setTimeout(resolve, 200));
process.stdout.write(`Wrote and indexed the vectors in ${((performance.now() - t) / 1000).toFixed(1)} s\n`);

/** Exact top k of query q among the documents `allow` keeps. */
function truth(q: number, allow: (i: number) => boolean): string[] {
  const query = row(queries, q);
  const best: { i: number; s: number }[] = [];
  for (let i = 0; i < n; i += 1) {
    if (!allow(i)) continue;
    const v = row(data, i);
    let s = 0;
    for (let d = 0; d < dims; d += 1) s += v[d]! * query[d]!;
    if (best.length < k || s > best[best.length - 1]!.s) {
      best.push({ i, s });
      best.sort((x, y) => y.s - x.s);
      if (best.length > k) best.pop();
    }
  }
  return best.map((b) => `d${b.i}`);
}

const percentile = (sorted: readonly number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;

async function measure(phase: string, offset: number): Promise<Record<string, string | number>[]> {
  const rows: Record<string, string | number>[] = [];
  for (const c of cases) {
    const times: number[] = [];
    let found = 0;
    let wanted = 0;
    let allowedTotal = 0;
    const plans = new Map<string, number>();
    for (let q = 0; q < queryCount; q += 1) {
      // Values never used before in the run: the two phases use different ones.
      const { raw, allow: allowed } = c.filter(q + offset);
      const reads = c.viewer?.reads ?? (() => true);
      const allow = (i: number) => allowed(i) && reads(i);
      const viewer = c.viewer?.who ?? benchViewer;
      const scope: Scope = { viewer, now: 0, table: name, filters: parseFilters(raw) };
      const started = performance.now();
      const answer = await engine.searches.vector(scope, {
        vector: Array.from(row(queries, q)),
        method: 'cosine',
        threshold: 0,
        limit: k,
        combineLocation: false,
        explain: true,
      });
      times.push(performance.now() - started);
      const expected = truth(q, allow);
      const ids = new Set(answer.results.map((r) => r.document_id));
      found += expected.filter((id) => ids.has(id)).length;
      wanted += expected.length;
      allowedTotal += answer.plan?.allowed ?? 0;
      const plan = `${answer.plan?.filter}/${answer.plan?.path}`;
      plans.set(plan, (plans.get(plan) ?? 0) + 1);
    }
    times.sort((a, b) => a - b);
    const total = times.reduce((a, b) => a + b, 0);
    rows.push({
      phase,
      filter: c.label,
      'recall@10': (wanted === 0 ? 1 : found / wanted).toFixed(3),
      'p50 ms': percentile(times, 0.5).toFixed(2),
      'p99 ms': percentile(times, 0.99).toFixed(2),
      QPS: Math.round((queryCount / total) * 1000),
      'allowed (mean)': Math.round(allowedTotal / queryCount),
      plans: [...plans].map(([p, count]) => `${p} ×${count}`).join(', '),
    });
  }
  return rows;
}

// BENCH_PLAIN=0 skips the searches without indexes (a quicker run of the indexed ones).
const without = process.env.BENCH_PLAIN === '0' ? [] : await measure('no index', 0);
t = performance.now();
await engine.log.submit({
  kind: 'update-collection',
  tenantId,
  name,
  body: { indexes: { 'metadata.tag': 'keyword', 'metadata.price': 'float', created_at: 'integer' } },
});
while (engine.fieldIndexes.building) await new Promise((resolve) => setImmediate(resolve));
const buildSeconds = (performance.now() - t) / 1000;
const info = engine.fieldIndexes.info(tenantId, name);
process.stdout.write(`Built the three indexes over ${n} documents in ${buildSeconds.toFixed(1)} s\n`);
// Disk of the postings (table and its two indexes, SQLite pages) per document and index; read by dbstat.
const pages = engine.db
  .prepare(
    "SELECT sum(pgsize) FROM dbstat WHERE name IN ('field_postings', 'field_postings_lookup', 'field_postings_doc')",
  )
  .pluck()
  .get() as number;
const bytesPerDocIndex = pages / n / 3;
process.stdout.write(
  `Postings on disk: ${(pages / 2 ** 20).toFixed(1)} MiB, ${bytesPerDocIndex.toFixed(0)} bytes per document and index (${((bytesPerDocIndex * 1e6) / 2 ** 20).toFixed(0)} MiB per index per 1M documents); nothing in memory but SQLite's page cache\n`,
);
const withIndexes = await measure('indexed', 100_000);
table([...without, ...withIndexes]);
const unfiltered = Number(withIndexes[0]!['p50 ms']);
process.stdout.write(
  `\np50 over unfiltered p50 (indexed): ${withIndexes
    .slice(1)
    .map((r) => `${r.filter} ${(Number(r['p50 ms']) / unfiltered).toFixed(1)}×`)
    .join(', ')}\n`,
);
saveResults('filters', {
  documents: n,
  dims,
  queries_per_filter: queryCount,
  index_build_seconds: Number(buildSeconds.toFixed(2)),
  postings_disk_bytes: pages,
  postings_bytes_per_document_and_index: Math.round(bytesPerDocIndex),
  indexes: info,
  rows: [...without, ...withIndexes],
});
await dispose();
