import type { Bm25Index } from '../server/src/engine/text/bm25-index.js';
import { bm25fProximityScore, type Bm25fProximityOptions } from '../server/src/engine/text/bm25f-proximity.js';
import { indexTerms } from '../server/src/engine/text/tokenize.js';
import { evaluate, type Cranfield } from './cranfield.js';
import { table } from './support.js';

const half = (c: Cranfield, odd: boolean): Cranfield => ({
  ...c,
  qrels: new Map([...c.qrels].filter(([q]) => q % 2 === (odd ? 1 : 0))),
});

/**
 * BM25F + proximity (decision 0061) re-ranking GoDB text's candidates (`candidates`: query id → ranking): its
 * options chosen by nDCG@10 on the odd-numbered queries over a small grid, then reported on the even ones (held
 * out) and all, next to plain GoDB text. Returns the rankings with the chosen options.
 */
export function bm25fProximityRankings(
  c: Cranfield,
  index: Bm25Index,
  candidates: Map<number, string[]>,
): { rankings: Map<number, string[]>; options: Bm25fProximityOptions } {
  const docs = new Map(c.docs.map((d) => [d.id, { title: indexTerms(d.title), content: indexTerms(d.text) }]));
  const queries = new Map(c.queries.map((q) => [q.id, [...new Set(indexTerms(q.text))]]));
  const df = new Map<string, number>();
  const dfOf = (t: string) => df.get(t) ?? df.set(t, index.publicChunks(t)).get(t)!;
  const rank = (options: Bm25fProximityOptions) => {
    const out = new Map<number, string[]>();
    for (const [qid, ids] of candidates) {
      const terms = queries.get(qid)!;
      const scored = ids.map((id, i) => {
        const d = docs.get(id)!;
        return { id, i, s: bm25fProximityScore(d.title, d.content, terms, dfOf, index.stats, options) };
      });
      out.set(
        qid,
        scored.sort((x, y) => y.s - x.s || x.i - y.i).map((x) => x.id),
      );
    }
    return out;
  };
  const odd = half(c, true);
  const even = half(c, false);
  let best: { options: Bm25fProximityOptions; ndcg: number } | undefined;
  for (const titleWeight of [1, 2, 3, 4])
    for (const proximity of [0, 0.25, 0.5, 1, 2])
      for (const window of [3, 5, 10]) {
        if (proximity === 0 && window !== 3) continue;
        const options = { titleWeight, contentWeight: 1, proximity, window };
        const ndcg = evaluate(odd, rank(options)).ndcg10;
        if (!best || ndcg > best.ndcg) best = { options, ndcg };
      }
  const rankings = rank(best!.options);
  const o = best!.options;
  process.stdout.write(
    `\nBM25F + proximity, chosen on the odd queries: title ${o.titleWeight}, content ${o.contentWeight}, proximity ${o.proximity}, window ${o.window}\n`,
  );
  const row = (system: string, r: Map<number, string[]>) => ({
    system,
    'odd nDCG@10': evaluate(odd, r).ndcg10.toFixed(4),
    'even nDCG@10 (held out)': evaluate(even, r).ndcg10.toFixed(4),
    'even MAP': evaluate(even, r).map.toFixed(4),
    'all nDCG@10': evaluate(c, r).ndcg10.toFixed(4),
  });
  table([row('GoDB text (BM25, Porter stemming)', candidates), row('GoDB BM25F + proximity', rankings)]);
  process.stdout.write('\n');
  return { rankings, options: best!.options };
}
