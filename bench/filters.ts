// npm run bench:filters [-- --docs 1000000 --queries 1000] — filtered vector search with and without field indexes
// (issue #39), in process: one collection of --docs (BENCH_DOCS, 50,000) documents with their own 64-d vectors
// (clustered, unit length: bench:scale's 512-d set would take hours to index in process on two cores) and
// metadata.tag (keyword, 1,000 values), metadata.price (float) and created_at (integer). Each query carries a filter
// value never used before in the run, at selectivities 0.1 %, 1 %, 10 %, 50 %, as a single condition and as a nested
// group (a must with a should of two groups): first measured without indexes (skipped past 100,000 documents, where a
// selective first-seen filter reads every document: seconds a query), then with the three fields indexed, each
// index declared and built alone (its build time and disk per document). recall@10 against brute force over the
// allowed set, p50/p99 and QPS beside unfiltered in the same run. Documents are private but 0.1 % (public), and 5 %
// are shared with one user: the same searches unfiltered as that user (ACL 5 %) and as a user who may read the
// public ones only (ACL 0.1 %) show the access rule's plan. --queries (BENCH_QUERIES, 50) per filter. --only "1 %"
// runs the cases whose label holds the text (and unfiltered, the ratios' base) and saves nothing: a profiling run.
import { parseArgs } from 'node:util';
import { FieldLists } from '../server/src/engine/field-indexes/field-lists.js';
import { parseFilters } from '../server/src/engine/search/filters.js';
import type { Scope } from '../server/src/engine/search/scope.js';
import { benchEngine, benchViewer } from './engine-fixture.js';
import { caveat, saveResults, table } from './support.js';
import { clusteredVectors, row } from './vector-data.js';

const { values: args } = parseArgs({
  options: { docs: { type: 'string' }, queries: { type: 'string' }, only: { type: 'string' } },
});
const n = Number(args.docs ?? process.env.BENCH_DOCS ?? 50_000);
const queryCount = Number(args.queries ?? process.env.BENCH_QUERIES ?? 50);
const dims = 64;
const k = 10;
const name = 'filtered';
const tenantId = benchViewer.tenantId;

const tagOf = (i: number) => (i * 7) % 1000; // metadata.tag is `t${tagOf(i)}`
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

/**
 * A price range of `width` (of 1,000) starting at a value no other query used: the phase's offset in the
 * millionths (a whole offset would shift the range past the prices, making its share smaller than the label says).
 */
const priceRange = (q: number, width: number, lowest = 0, highest = 1000) => {
  const from = lowest + ((q * 9.73) % Math.max(1e-9, highest - lowest - width)) + q / 1e7;
  return {
    raw: [
      { field: 'metadata.price', operator: 'gte', value: from },
      { field: 'metadata.price', operator: 'lt', value: from + width },
    ],
    allow: (i: number) => priceOf(i) >= from && priceOf(i) < from + width,
  };
};

const selectivities = [0.1, 1, 10, 50];
const allCases: Case[] = [
  { label: 'none', filter: () => ({ raw: undefined, allow: () => true }) },
  {
    label: '0.1 % tag',
    filter: (q) => {
      const tag = (q * 13) % 1000;
      return { raw: [{ field: 'metadata.tag', operator: 'eq', value: `t${tag}` }], allow: (i) => tagOf(i) === tag };
    },
  },
  ...[1, 10, 50].map((percent) => ({
    label: `${percent} % price`,
    filter: (q: number) => priceRange(q, percent * 10),
  })),
  // Nested: created_at in the newer half (a few documents more, by query), and a price in one of two ranges, each
  // a group of its own, in the lower and the upper half of the prices: half of twice the range's share.
  ...selectivities.map((percent) => ({
    label: `${percent} % nested`,
    filter: (q: number) => {
      const since = createdOf(Math.floor(n / 2) - (q % 97));
      const width = percent * 10;
      const [a, b] = [priceRange(q, width, 0, 500), priceRange(q, width, 500, 1000)];
      return {
        raw: {
          must: [{ field: 'created_at', operator: 'gte', value: since }],
          should: [{ must: a.raw }, { must: b.raw }],
        },
        allow: (i: number) => createdOf(i) >= since && (a.allow(i) || b.allow(i)),
      };
    },
  })),
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

const only = args.only;
const cases = only === undefined ? allCases : allCases.filter((c) => c.label === 'none' || c.label.includes(only));

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
      metadata: { tag: `t${tagOf(i)}`, price: priceOf(i) },
      visibility: isPublic(i) ? ('public' as const) : ('private' as const),
      ...(sharedWithReader(i) && { acl: [{ user_id: reader.userId, role: 'view' as const }] }),
    };
  });
  await engine.add(benchViewer, docs, (i) => `body[${i}]`);
  if (from % 100_000 === 0 && from > 0) process.stdout.write(`  ${from} written\n`);
}
while (engine.vectors.lag() > 0) await new Promise((resolve) => setTimeout(resolve, 200));
process.stdout.write(`Wrote and indexed the vectors in ${((performance.now() - t) / 1000).toFixed(1)} s\n`);

/**
 * The exact top k of every query of every case (both phases): each query's similarities computed once, then kept
 * per case among the documents the filter and the access rule allow.
 */
function truths(offset: number): string[][][] {
  t = performance.now();
  const out: string[][][] = cases.map(() => []);
  const scores = new Float32Array(n);
  for (let q = 0; q < queryCount; q += 1) {
    const query = row(queries, q);
    for (let i = 0; i < n; i += 1) {
      let s = 0;
      const base = i * dims;
      for (let d = 0; d < dims; d += 1) s += data.matrix[base + d]! * query[d]!;
      scores[i] = s;
    }
    cases.forEach((c, ci) => {
      const { allow } = c.filter(q + offset);
      const reads = c.viewer?.reads ?? (() => true);
      const best: { i: number; s: number }[] = [];
      for (let i = 0; i < n; i += 1) {
        const s = scores[i]!;
        if (best.length === k && s <= best[k - 1]!.s) continue;
        if (!allow(i) || !reads(i)) continue;
        best.push({ i, s });
        best.sort((x, y) => y.s - x.s);
        if (best.length > k) best.pop();
      }
      out[ci]![q] = best.map((b) => `d${b.i}`);
    });
  }
  process.stdout.write(`Brute force over the allowed sets in ${((performance.now() - t) / 1000).toFixed(1)} s\n`);
  return out;
}

const percentile = (sorted: readonly number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;

async function measure(phase: string, offset: number): Promise<Record<string, string | number>[]> {
  const expected = truths(offset);
  const rows: Record<string, string | number>[] = [];
  for (const [ci, c] of cases.entries()) {
    const times: number[] = [];
    let found = 0;
    let wanted = 0;
    let allowedTotal = 0;
    const plans = new Map<string, number>();
    for (let q = 0; q < queryCount; q += 1) {
      // Values never used before in the run: the two phases use different ones.
      const { raw } = c.filter(q + offset);
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
      const truth = expected[ci]![q]!;
      const ids = new Set(answer.results.map((r) => r.document_id));
      found += truth.filter((id) => ids.has(id)).length;
      wanted += truth.length;
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

// BENCH_PLAIN=0 skips the searches without indexes (a quicker run of the indexed ones); past 100,000 documents they
// are skipped unless BENCH_PLAIN=1.
const plain = process.env.BENCH_PLAIN ?? (n > 100_000 ? '0' : '1');
const without = plain === '0' ? [] : await measure('no index', 0);

// Each index declared alone and built before the next: its build time, and its disk (the postings table and its two
// indexes, SQLite pages, read by dbstat) as what it added.
const postingsBytes = () =>
  engine.db
    .prepare(
      "SELECT coalesce(sum(pgsize), 0) FROM dbstat WHERE name IN ('field_postings', 'field_postings_lookup', 'field_postings_doc_values')",
    )
    .pluck()
    .get() as number;
const declared: Record<string, 'keyword' | 'float' | 'integer'> = {};
const builds: Record<string, string | number>[] = [];
for (const [path, kind] of [
  ['metadata.tag', 'keyword'],
  ['metadata.price', 'float'],
  ['created_at', 'integer'],
] as const) {
  declared[path] = kind;
  const before = postingsBytes();
  const heapBefore = process.memoryUsage().heapUsed;
  t = performance.now();
  await engine.log.submit({ kind: 'update-collection', tenantId, name, body: { indexes: { ...declared } } });
  while (engine.fieldIndexes.building) await new Promise((resolve) => setImmediate(resolve));
  const seconds = (performance.now() - t) / 1000;
  const disk = postingsBytes() - before;
  builds.push({
    index: path,
    kind,
    'build s': seconds.toFixed(1),
    'build docs/s': Math.round(n / seconds),
    'disk B/doc': Math.round(disk / n),
    'disk MiB per 1M docs': Math.round((disk / n) * (1e6 / 2 ** 20)),
    // The postings live in SQLite; the in-memory lists are built on first use (see `lists`).
    'heap delta MiB': Math.round((process.memoryUsage().heapUsed - heapBefore) / 2 ** 20),
  });
}
process.stdout.write('\nIndex builds (each alone, in the background of an idle engine)\n');
table(builds);
const info = engine.fieldIndexes.info(tenantId, name);
// The in-memory lists (decision 0077) are built from SQLite on an index's first use: timed here, before the queries.
const lists: Record<string, string | number>[] = [];
for (const path of Object.keys(declared)) {
  t = performance.now();
  engine.fieldIndexes.countPresent(tenantId, name, path, 1);
  lists.push({ index: path, 'list build ms': Math.round(performance.now() - t) });
}
const withIndexes = await measure('indexed', 100_000);
const listBytes = FieldLists.of(engine.db).bytes(tenantId, name);
for (const row of lists) row['memory B/doc'] = Number((listBytes[row.index as string]! / n).toFixed(1));
process.stdout.write('\nIn-memory posting lists (built on first use; memory after the queries)\n');
table(lists);
table([...without, ...withIndexes]);
const unfiltered = Number(withIndexes[0]!['p50 ms']);
const ratios = Object.fromEntries(
  withIndexes.slice(1).map((r) => [r.filter, Number((Number(r['p50 ms']) / unfiltered).toFixed(2))]),
);
process.stdout.write(
  `\np50 over unfiltered p50 (indexed): ${Object.entries(ratios)
    .map(([label, ratio]) => `${label} ${ratio}×`)
    .join(', ')}\n`,
);
const buildSeconds = builds.reduce((sum, b) => sum + Number(b['build s']), 0);
const disk = builds.reduce((sum, b) => sum + Number(b['disk B/doc']), 0);
if (only === undefined)
  saveResults('filters', {
    documents: n,
    dims,
    queries_per_filter: queryCount,
    index_build_seconds: Number(buildSeconds.toFixed(2)),
    postings_bytes_per_document_and_index: Math.round(disk / builds.length),
    builds,
    lists,
    p50_over_unfiltered: ratios,
    indexes: info,
    rows: [...without, ...withIndexes],
  });
await dispose();
