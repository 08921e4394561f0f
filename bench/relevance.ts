// npm run bench:relevance — Cranfield: nDCG@10, MAP and P@10 of GoDB text, vector and hybrid search and the query
// pipeline (POST /api/v1/search/query: text + dense, RRF, MMR; and text with RM3 + dense, DBSF, tuned on the odd
// queries), next to peers on the same documents and queries in the same run: Xapian BM25 (python3-xapian,
// bench/xapian_bm25.py), raw SQLite FTS5 bm25() (unicode61 and porter), MiniSearch, and PostgreSQL ts_rank_cd when a
// PostgreSQL server is installed. Ends with issue #42's relevance goals and the tuned rows by half.
import Database from 'better-sqlite3';
import MiniSearch from 'minisearch';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { hybridSearch } from '../server/src/engine/search/hybrid-search.js';
import type { Scope } from '../server/src/engine/search/scope.js';
import { textSearch } from '../server/src/engine/search/text-search.js';
import { vectorSearch } from '../server/src/engine/search/vector-search.js';
import { evaluate, loadCranfield } from './cranfield.js';
import { benchEngine, benchViewer } from './engine-fixture.js';
import { relevanceByChunking } from './relevance-chunking.js';
import { pipelineRankings, rrfMmrPipeline, tunedPipeline } from './relevance-pipeline.js';
import { bm25fProximityRankings } from './relevance-bm25f.js';
import { caveat, saveResults, table } from './support.js';
import { tuningStudy } from './relevance-tuning.js';
import { halves, type Scored } from './relevance-prf.js';
import { operationById } from '@godb/contract';
import type { Fusion } from '../server/src/engine/search/hybrid-search.js';

const depth = 100;
const c = loadCranfield();
caveat();
process.stdout.write(
  `Cranfield: ${c.docs.length} documents, ${c.queries.length} queries, ${c.qrels.size} with judgements\n\n`,
);
const rows: Record<string, string | number>[] = [];
/** Each system's rankings, for the held-out comparison of RM3 feedback (decision 0074). */
const rankingsOf = new Map<string, Map<number, string[]>>();
const record = (system: string, rankings: Map<number, string[]>) => {
  rankingsOf.set(system, rankings);
  const m = evaluate(c, rankings);
  rows.push({ system, 'nDCG@10': m.ndcg10.toFixed(4), MAP: m.map.toFixed(4), 'P@10': m.p10.toFixed(4) });
  process.stdout.write(`  ${system}: nDCG@10 ${m.ndcg10.toFixed(4)}\n`);
};
const bm25fSystem = 'GoDB BM25F + proximity (tuned on odd queries)';
const textSystem = 'GoDB text (BM25, Porter stemming)';
const feedbackSystem = 'GoDB text + RM3 feedback (5 docs, 10 terms, original 0.5)';
const tunedFeedbackSystem = 'GoDB text + RM3 feedback (3 docs, 50 terms, original 0.4; tuned on odd queries)';
const vectorSystem = 'GoDB vector (use-lite-512)';
/** The single methods (one text or vector ranking each) the third goal's best single method is chosen from. */
const singleSystems = [textSystem, feedbackSystem, tunedFeedbackSystem, bm25fSystem, vectorSystem];
const tokens = (q: string) => q.toLowerCase().match(/[a-z0-9]+/g) ?? [];

// --- GoDB, through the engine's own search functions -------------------------------------------------------
const { engine, dispose } = benchEngine();
const viewer = benchViewer;
const started = performance.now();
await engine.add(
  viewer,
  c.docs.map((d) => ({ id: d.id, title: d.title, content: d.text })),
  (i) => `docs[${i}]`,
);
process.stdout.write(
  `GoDB indexed the collection with use-lite-512 in ${((performance.now() - started) / 1000).toFixed(1)} s\n`,
);
// Word queries are ranked by the tenant's in-memory BM25 index once it has loaded (FTS5 answers, with the same
// scores, until then): wait for it, so these rankings come from it.
await engine.text.loaded(viewer.tenantId);
const scope: Scope = { viewer, now: Math.floor(Date.now() / 1000) };
const run = async (system: string, search: (q: string) => Promise<string[]> | string[]) => {
  const rankings = new Map<number, string[]>();
  for (const q of c.queries) rankings.set(q.id, await search(q.text));
  record(system, rankings);
};
await run(textSystem, (q) =>
  textSearch(engine.search, scope, q, 'match')
    .hits.slice(0, depth)
    .map((h) => h.doc.id),
);
// RM3 feedback (decision 0074) through the engine's text search entry point, as POST /api/v1/search/text runs it
// with `feedback: {}` (the defaults, chosen on the odd queries in decision 0071).
await run(feedbackSystem, async (q) =>
  (
    await engine.searches.text(scope, {
      query: q,
      type: 'match',
      limit: depth,
      feedback: { docs: 5, terms: 10, original_weight: 0.5 },
    })
  ).results.map((r) => r.document_id),
);
// The same with the feedback the pipeline study chose on the odd queries (bench/relevance.md, "Tuning the query
// pipeline"): the tuned pipeline's text stage alone, so that the best single method counts the tuning too.
await run(tunedFeedbackSystem, async (q) =>
  (
    await engine.searches.text(scope, {
      query: q,
      type: 'match',
      limit: depth,
      feedback: { docs: 3, terms: 50, original_weight: 0.4 },
    })
  ).results.map((r) => r.document_id),
);
{
  // BM25F + proximity (opt-in, decision 0061) re-ranks GoDB text's top `depth`, tuned on the odd queries.
  const candidates = new Map(
    c.queries.map((q) => [
      q.id,
      textSearch(engine.search, scope, q.text, 'match')
        .hits.slice(0, depth)
        .map((h) => h.doc.id),
    ]),
  );
  const { rankings } = bm25fProximityRankings(c, engine.text.ranked(viewer.tenantId)!, candidates);
  record(bm25fSystem, rankings);
}
// The dense side's cosines are kept for decision 0071's fusion study (raw similarity, as hybrid search fuses).
const denseScored = new Map<number, Scored>();
{
  const rankings = new Map<number, string[]>();
  for (const q of c.queries) {
    const { hits } = await vectorSearch(engine.search, engine.embedder, scope, {
      text: q.text,
      method: 'cosine',
      threshold: -1,
      limit: depth,
    });
    const scored = hits.slice(0, depth).map((h): [string, number] => [h.doc.id, h.similarity ?? h.score]);
    denseScored.set(q.id, scored);
    rankings.set(
      q.id,
      scored.map(([id]) => id),
    );
  }
  record(vectorSystem, rankings);
}
saveResults('relevance-tuning', tuningStudy(c, denseScored, depth));
await hybridComparison();
// Text search on chunked documents next to whole ones (issue #44): saved as relevance-chunking.json. It indexes
// Cranfield twice more with use-lite-512 (~20 min on 2 cores): BENCH_CHUNKING=0 skips it and keeps the saved file.
if (process.env.BENCH_CHUNKING !== '0') await relevanceByChunking(engine, c, depth);
await dispose();
// The query pipeline over HTTP, one server indexed once: the RRF + MMR row (kept for continuity) and the pipeline
// tuned on the odd queries.
const pipelines = [rrfMmrPipeline(depth), tunedPipeline];
const pipelineSystems = pipelines.map((p) => p.system);
for (const [system, rankings] of await pipelineRankings(c, pipelines)) record(system, rankings);

// --- Peer: Xapian BM25 (python3-xapian; English stemmer, BM25Weight defaults) ---------------------------------
const xapianSystem = 'Xapian 1.4 BM25 (English stemmer)';
{
  const script = fileURLToPath(new URL('./xapian_bm25.py', import.meta.url));
  const out = spawnSync('/usr/bin/python3', [script], {
    input: JSON.stringify({ docs: c.docs, queries: c.queries, depth }),
    encoding: 'utf8',
    maxBuffer: 1 << 28,
  });
  if (out.status !== 0) process.stdout.write(`  Xapian: failed (is python3-xapian installed?): ${out.stderr}\n`);
  else
    record(
      xapianSystem,
      new Map(Object.entries(JSON.parse(out.stdout) as Record<string, string[]>).map(([q, ids]) => [Number(q), ids])),
    );
}

// --- Peer: raw SQLite FTS5 bm25() -----------------------------------------------------------------------------
{
  const db = new Database(':memory:');
  db.exec('CREATE VIRTUAL TABLE t USING fts5(id UNINDEXED, title, content)');
  const insert = db.prepare('INSERT INTO t (id, title, content) VALUES (?, ?, ?)');
  db.transaction(() => c.docs.forEach((d) => insert.run(d.id, d.title, d.text)))();
  const query = db.prepare('SELECT id FROM t WHERE t MATCH ? ORDER BY bm25(t) LIMIT ?').pluck();
  await run('SQLite FTS5 bm25() (unicode61)', (q) => {
    const terms = tokens(q);
    return terms.length ? (query.all(terms.map((t) => `"${t}"`).join(' OR '), depth) as string[]) : [];
  });
  db.exec("CREATE VIRTUAL TABLE p USING fts5(id UNINDEXED, title, content, tokenize = 'porter unicode61')");
  const insertPorter = db.prepare('INSERT INTO p (id, title, content) VALUES (?, ?, ?)');
  db.transaction(() => c.docs.forEach((d) => insertPorter.run(d.id, d.title, d.text)))();
  const queryPorter = db.prepare('SELECT id FROM p WHERE p MATCH ? ORDER BY bm25(p) LIMIT ?').pluck();
  await run('SQLite FTS5 bm25() (porter)', (q) => {
    const terms = tokens(q);
    return terms.length ? (queryPorter.all(terms.map((t) => `"${t}"`).join(' OR '), depth) as string[]) : [];
  });
}

// --- Peer: MiniSearch -----------------------------------------------------------------------------------------
{
  const mini = new MiniSearch({ fields: ['title', 'text'], idField: 'id' });
  mini.addAll(c.docs);
  await run('MiniSearch 7 (BM25+)', (q) =>
    mini
      .search(q)
      .slice(0, depth)
      .map((r) => String(r.id)),
  );
}

// --- Peer: PostgreSQL ts_rank_cd, when installed ---------------------------------------------------------------
const pgBin = existsSync('/usr/lib/postgresql')
  ? readdirSync('/usr/lib/postgresql')
      .map((v) => `/usr/lib/postgresql/${v}/bin`)
      .find((b) => existsSync(`${b}/initdb`))
  : undefined;
if (!pgBin) {
  process.stdout.write('  PostgreSQL: not installed here, skipped (apt-get install postgresql to include it)\n');
} else {
  const pgDir = mkdtempSync(join(tmpdir(), 'godb-pg-'));
  chmodSync(pgDir, 0o777);
  const asPostgres = (cmd: string, args: string[], input?: string) =>
    spawnSync('runuser', ['-u', 'postgres', '--', cmd, ...args], { encoding: 'utf8', input, maxBuffer: 1 << 28 });
  const data = join(pgDir, 'data');
  asPostgres(`${pgBin}/initdb`, ['-D', data, '-A', 'trust', '-U', 'postgres']);
  asPostgres(`${pgBin}/pg_ctl`, [
    '-D',
    data,
    '-o',
    `-k ${pgDir} -p 54329 -c listen_addresses=''`,
    '-w',
    'start',
    '-l',
    join(pgDir, 'log'),
  ]);
  const psql = (sql: string) =>
    asPostgres('psql', ['-h', pgDir, '-p', '54329', '-U', 'postgres', '-At', '-v', 'ON_ERROR_STOP=1'], sql);
  const escape = (s: string) => s.replace(/\\/g, '\\\\').replace(/\t/g, ' ').replace(/\n/g, ' ');
  const load = `CREATE TABLE docs (id text, title text, body text);\nCOPY docs FROM stdin;\n${c.docs.map((d) => `${d.id}\t${escape(d.title)}\t${escape(d.text)}`).join('\n')}\n\\.\nALTER TABLE docs ADD COLUMN v tsvector;\nUPDATE docs SET v = setweight(to_tsvector('english', title), 'A') || to_tsvector('english', body);\n`;
  const loaded = psql(load);
  if (loaded.status !== 0) process.stdout.write(`  PostgreSQL: load failed: ${loaded.stderr}\n`);
  else {
    const sqlFile = c.queries
      .map((q) => {
        const terms = tokens(q.text).join(' | ');
        return `SELECT ${q.id} || ':' || coalesce(string_agg(id, ',' ORDER BY r DESC), '') FROM (SELECT id, ts_rank_cd(v, to_tsquery('english', '${terms}')) AS r FROM docs WHERE v @@ to_tsquery('english', '${terms}') ORDER BY r DESC LIMIT ${depth}) s;`;
      })
      .join('\n');
    writeFileSync(join(pgDir, 'queries.sql'), sqlFile);
    const out = psql(sqlFile);
    const rankings = new Map<number, string[]>();
    for (const line of out.stdout.trim().split('\n')) {
      const [qid, list] = line.split(':');
      rankings.set(Number(qid), list ? list.split(',') : []);
    }
    record('PostgreSQL 15 ts_rank_cd (english)', rankings);
  }
  asPostgres(`${pgBin}/pg_ctl`, ['-D', data, '-m', 'fast', 'stop']);
  rmSync(pgDir, { recursive: true, force: true });
}

process.stdout.write('\n');
table(rows);
saveResults('relevance', rows);
relevanceGoals();
feedbackHalves();
tunedHalves();

/** RM3 feedback next to plain BM25 and Xapian on the tuning (odd) and held-out (even) halves (decision 0074). */
function feedbackHalves(): void {
  const out: Record<string, string>[] = [];
  for (const system of [textSystem, feedbackSystem, xapianSystem]) {
    const rankings = rankingsOf.get(system);
    if (!rankings) continue;
    const h = halves(c, rankings);
    out.push({
      system,
      'tuning (odd)': h.tuning.ndcg10.toFixed(4),
      'held out (even)': h.heldOut.ndcg10.toFixed(4),
      'all 225': h.all.ndcg10.toFixed(4),
      'all MAP': h.all.map.toFixed(4),
    });
  }
  process.stdout.write('\nRM3 feedback by half (nDCG@10):\n');
  table(out);
  saveResults('relevance-feedback', out);
}

/**
 * The rows tuned on the odd queries (and their untuned counterparts) on the tuning (odd) and held-out (even) halves,
 * then the third goal on the held-out half alone: the tuned pipeline against the best single method there.
 */
function tunedHalves(): void {
  const out: Record<string, string>[] = [];
  const even = new Map<string, number>();
  for (const system of [textSystem, feedbackSystem, tunedFeedbackSystem, bm25fSystem, ...pipelineSystems]) {
    const rankings = rankingsOf.get(system);
    if (!rankings) continue;
    const h = halves(c, rankings);
    even.set(system, h.heldOut.ndcg10);
    out.push({
      system,
      'tuning (odd)': h.tuning.ndcg10.toFixed(4),
      'held out (even)': h.heldOut.ndcg10.toFixed(4),
      'all 225': h.all.ndcg10.toFixed(4),
      'all MAP': h.all.map.toFixed(4),
    });
  }
  const vector = rankingsOf.get(vectorSystem);
  if (vector) even.set(vectorSystem, halves(c, vector).heldOut.ndcg10);
  process.stdout.write('\nTuned rows by half (nDCG@10; tuned on the odd queries, the even ones held out):\n');
  table(out);
  const single = singleSystems
    .filter((s) => even.has(s))
    .map((s) => ({ system: s, value: even.get(s)! }))
    .reduce((a, b) => (b.value > a.value ? b : a));
  const pipeline = { system: tunedPipeline.system, value: even.get(tunedPipeline.system) ?? NaN };
  const gain = ((pipeline.value - single.value) / single.value) * 100;
  process.stdout.write(
    `Held out (even): ${pipeline.system} ${pipeline.value.toFixed(4)} against the best single method there, ` +
      `${single.system} ${single.value.toFixed(4)}: ${gain.toFixed(1)} % ` +
      `(goal +10 %, target ${(single.value * 1.1).toFixed(4)})\n`,
  );
  saveResults('relevance-tuned', out);
}

/**
 * Issue #42's relevance goals, by nDCG@10: GoDB text (its best text search option: BM25, or BM25 with RM3 feedback
 * at its defaults) ≥ Xapian BM25 + 5 %; the best combination of methods (hybrid fusions, the query pipelines) ≥ the
 * best single method (every single text or vector row: BM25, RM3 feedback at the defaults or tuned on the odd
 * queries, BM25F + proximity, vector) + 10 %.
 */
function relevanceGoals(): void {
  const ndcg = (system: string) => Number(rows.find((r) => r.system === system)?.['nDCG@10'] ?? NaN);
  const best = (systems: string[]) =>
    systems.map((system) => ({ system, value: ndcg(system) })).reduce((a, b) => (b.value > a.value ? b : a));
  // GoDB text: the best of its text search options at their defaults (plain BM25, `feedback: {}`); the best single
  // method counts every single text or vector row, the tuned feedback included.
  const text = best([textSystem, feedbackSystem]);
  const single = best(singleSystems);
  const combined = best(
    rows.map((r) => String(r.system)).filter((s) => s.startsWith('GoDB hybrid') || pipelineSystems.includes(s)),
  );
  const goal = (name: string, ours: typeof text, against: typeof text, factor: number) => ({
    goal: name,
    ours: `${ours.system} ${ours.value.toFixed(4)}`,
    target: `${against.system} ${against.value.toFixed(4)} × ${factor} = ${(against.value * factor).toFixed(4)}`,
    gain: `${(((ours.value - against.value) / against.value) * 100).toFixed(1)} %`,
    met: ours.value >= against.value * factor ? 'yes' : 'no',
  });
  const goals = [
    goal('text ≥ Xapian + 5 %', text, { system: xapianSystem, value: ndcg(xapianSystem) }, 1.05),
    goal(
      'opt-in BM25F + proximity ≥ Xapian + 5 %',
      { system: bm25fSystem, value: ndcg(bm25fSystem) },
      { system: xapianSystem, value: ndcg(xapianSystem) },
      1.05,
    ),
    goal('best pipeline ≥ best single + 10 %', combined, single, 1.1),
  ];
  process.stdout.write('\nIssue #42 relevance goals (nDCG@10):\n');
  table(goals);
  saveResults('relevance-goals', goals);
}

/**
 * Hybrid search by each fusion at two alphas (issue #37: the default fusion must be no worse than weighted
 * min-max), recorded with the other systems and printed side by side; the API's defaults are marked.
 */
async function hybridComparison(): Promise<void> {
  const defaults = operationById('search-hybrid').body?.properties as Record<'fusion' | 'alpha', { default: unknown }>;
  const compared: Record<string, string | number>[] = [];
  for (const fusion of ['weighted', 'rrf', 'dbsf', 'dbsf_relative'] as const satisfies readonly Fusion[]) {
    for (const alpha of [0.3, 0.5]) {
      const isDefault = fusion === defaults.fusion.default && alpha === defaults.alpha.default;
      await run(`GoDB hybrid (${fusion}, alpha ${alpha})`, async (q) =>
        (
          await hybridSearch(engine.search, engine.embedder, scope, {
            text: q,
            alpha,
            limit: depth / 2,
            fusion,
            useMlRanking: false,
          })
        ).hits
          .slice(0, depth)
          .map((h) => h.doc.id),
      );
      const row = rows[rows.length - 1]!;
      compared.push({ fusion, alpha, 'nDCG@10': row['nDCG@10']!, MAP: row.MAP!, default: isDefault ? 'yes' : '' });
    }
  }
  process.stdout.write('\nHybrid fusions on Cranfield:\n');
  table(compared);
  process.stdout.write('\n');
}
