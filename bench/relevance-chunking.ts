// Issue #44, measured in `npm run bench:relevance`: GoDB's text search on Cranfield when the same documents sit in a
// text-only collection (whole documents, no vector), in a collection whose model vector (use-lite-512) is filled
// from chunks of the default size (1024 characters, 200 of overlap), and in the same with chunk_size 256. Each
// setup is its own tenant, so each has its own BM25 statistics. Saved as bench/results/relevance-chunking.json.
import type { TestEngine } from '../server/src/test-support/engine.js';
import type { Scope } from '../server/src/engine/search/scope.js';
import { textSearch } from '../server/src/engine/search/text-search.js';
import { evaluate, type Cranfield } from './cranfield.js';
import { saveResults, table } from './support.js';

const setups = [
  {
    setup: 'text-only collection (no vector, documents whole)',
    options: { chunk_size: 65_536, chunk_overlap: 0, embedding_options: { enabled: false } },
  },
  { setup: 'model vector use-lite-512, default chunking (1024 / 200)', options: {} },
  { setup: 'model vector use-lite-512, chunk_size 256 (overlap 200)', options: { chunk_size: 256 } },
] as const;

/** Runs the three setups through `engine`, prints and saves nDCG@10 and MAP side by side; answers the rows. */
export async function relevanceByChunking(engine: TestEngine, c: Cranfield, depth: number) {
  const rows: Record<string, string | number>[] = [];
  let baseline: { ndcg10: number; map: number } | undefined;
  for (const [i, { setup, options }] of setups.entries()) {
    const viewer = {
      tenantId: `00000000-0000-4000-8000-0000000004${String(i).padStart(2, '0')}`,
      userId: 'bench',
      groups: [],
    };
    const started = performance.now();
    await engine.add(
      viewer,
      c.docs.map((d) => ({ id: d.id, title: d.title, content: d.text, ...options })),
      (n) => `docs[${n}]`,
    );
    const seconds = (performance.now() - started) / 1000;
    await engine.text.loaded(viewer.tenantId);
    const scope: Scope = { viewer, now: Math.floor(Date.now() / 1000) };
    const chunks = engine.text.ranked(viewer.tenantId)?.size ?? 0;
    const rankings = new Map<number, string[]>();
    for (const q of c.queries)
      rankings.set(
        q.id,
        textSearch(engine.search, scope, q.text, 'match')
          .hits.slice(0, depth)
          .map((h) => h.doc.id),
      );
    const m = evaluate(c, rankings);
    baseline ??= m;
    const change = (value: number, base: number) => `${(((value - base) / base) * 100).toFixed(1)} %`;
    rows.push({
      setup,
      chunks,
      'nDCG@10': m.ndcg10.toFixed(4),
      MAP: m.map.toFixed(4),
      'nDCG@10 vs text-only': change(m.ndcg10, baseline.ndcg10),
      'MAP vs text-only': change(m.map, baseline.map),
      'indexed in s': seconds.toFixed(1),
    });
    process.stdout.write(`  GoDB text, ${setup}: nDCG@10 ${m.ndcg10.toFixed(4)}, MAP ${m.map.toFixed(4)}\n`);
  }
  process.stdout.write('\nText search by chunking (issue #44):\n');
  table(rows);
  saveResults('relevance-chunking', rows);
  return rows;
}
