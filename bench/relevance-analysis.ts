// node --conditions=source --import tsx bench/relevance-analysis.ts — issue #42: Cranfield (English) text search
// under the query-time analysis settings, on a text-only collection (no embedding, so it runs in seconds): BM25 as
// before, with the English stop-word list, and the same queries ranked through FTS5 (as while the in-memory index
// loads), which must rank alike. Prints nDCG@10 and MAP; the time to index the collection. Decision 0054.
import { textMatch } from '../server/src/engine/search/fts-query.js';
import { ftsRanked } from '../server/src/engine/search/fts-rank.js';
import type { Scope } from '../server/src/engine/search/scope.js';
import { textSearch } from '../server/src/engine/search/text-search.js';
import { analyseMatch, queryAnalysis, type QueryAnalysis } from '../server/src/engine/text/query-analysis.js';
import { evaluate, loadCranfield } from './cranfield.js';
import { benchEngine, benchViewer } from './engine-fixture.js';
import { caveat, saveResults, table } from './support.js';

const depth = 100;
const c = loadCranfield();
caveat();
const { engine, dispose } = benchEngine();
const viewer = benchViewer;
const scope: Scope = { viewer, now: Math.floor(Date.now() / 1000) };
const started = performance.now();
await engine.add(
  viewer,
  c.docs.map((d) => ({
    id: d.id,
    title: d.title,
    content: d.text,
    chunk_size: 65_536,
    chunk_overlap: 0,
    embedding_options: { enabled: false },
  })),
  (i) => `docs[${i}]`,
);
const indexed = (performance.now() - started) / 1000;

// Through FTS5 first: the in-memory index has not loaded yet (the first search starts its load).
const viaFts = (analysis: QueryAnalysis) => {
  const rankings = new Map<number, string[]>();
  for (const q of c.queries) {
    const match = analyseMatch(textMatch(q.text, 'match')!, analysis).match;
    rankings.set(
      q.id,
      engine.search
        .group(scope, ftsRanked(engine.search, scope, match, 10_000))
        .slice(0, depth)
        .map((h) => h.doc.id),
    );
  }
  return rankings;
};
const viaIndex = (analysis: QueryAnalysis) => {
  const rankings = new Map<number, string[]>();
  for (const q of c.queries)
    rankings.set(
      q.id,
      textSearch(engine.search, scope, q.text, 'match', undefined, analysis)
        .hits.slice(0, depth)
        .map((h) => h.doc.id),
    );
  return rankings;
};
const plain = queryAnalysis(undefined);
const stopWords = queryAnalysis({ stop_words: 'english' });
const fts = { plain: viaFts(plain), stopWords: viaFts(stopWords) };
await engine.text.loaded(viewer.tenantId);
const rows = [
  { system: 'BM25 (English Porter), FTS5 while loading', rankings: fts.plain },
  { system: 'BM25 (English Porter), in-memory index', rankings: viaIndex(plain) },
  { system: 'BM25 + stop_words english, FTS5 while loading', rankings: fts.stopWords },
  { system: 'BM25 + stop_words english, in-memory index', rankings: viaIndex(stopWords) },
].map(({ system, rankings }) => {
  const m = evaluate(c, rankings);
  return { system, 'nDCG@10': m.ndcg10.toFixed(4), MAP: m.map.toFixed(4), 'P@10': m.p10.toFixed(4) };
});
process.stdout.write(`Cranfield, text-only collection, indexed in ${indexed.toFixed(1)} s\n`);
table(rows);
saveResults('relevance-analysis', { indexedSeconds: Number(indexed.toFixed(1)), rows });
await dispose();
