import { evaluate, type Cranfield } from './cranfield.js';
import {
  dbsf,
  halves,
  idsOf,
  lexicalModel,
  rrf,
  tuningHalf,
  type Bm25Params,
  type Rm3Params,
  type Scored,
} from './relevance-prf.js';
import { table } from './support.js';

const defaults: Bm25Params = { k1: 1.2, b: 0.75, title: 2 };

/**
 * Decision 0071's protocol: every option below is chosen by nDCG@10 on the odd queries (the tuning half) only, then
 * reported on the even ones (held out) and on all 225: BM25 k1/b/title weight, RM3 pseudo-relevance feedback, and
 * fusion (RRF with k and weight, DBSF with weight) of BM25 or BM25 + RM3 with the dense ranking `dense` (use-lite-512
 * cosines, query id → best first). Returns the table's rows, to be saved with the bench's results.
 */
export function tuningStudy(c: Cranfield, dense: Map<number, Scored>, depth: number): Record<string, string>[] {
  const model = lexicalModel(c);
  const tuning = tuningHalf(c);
  const pick = <T>(candidates: T[], rank: (x: T) => Map<number, string[]>) => {
    let best: { option: T; ndcg: number; ranking: Map<number, string[]> } | undefined;
    for (const option of candidates) {
      const ranking = rank(option);
      const ndcg = evaluate(tuning, ranking).ndcg10;
      if (!best || ndcg > best.ndcg) best = { option, ndcg, ranking };
    }
    return best!;
  };
  const grid = <T>(...axes: T[][]): T[][] =>
    axes.reduce<T[][]>((acc, axis) => acc.flatMap((a) => axis.map((v) => [...a, v])), [[]]);

  const bm25 = model.rankAll(defaults, depth);
  const tunedBm25 = pick(
    grid([0.9, 1.2, 1.5, 2], [0.5, 0.75, 0.9], [1, 2, 3]).map(([k1, b, title]) => ({ k1, b, title }) as Bm25Params),
    (p) => idsOf(model.rankAll(p, depth)),
  );
  const prf = pick(
    grid([5, 10], [10, 20], [0.5, 0.7]).map(([docs, terms, original]) => ({ docs, terms, original }) as Rm3Params),
    (r) => idsOf(model.rankAll(defaults, depth, r)),
  );
  const prfRankings = model.rankAll(defaults, depth, prf.option);
  const fused = (lexical: Map<number, Scored>, name: string) => {
    const rrfPick = pick(
      grid([10, 60], [0.2, 0.3, 0.5]).map(([k, alpha]) => ({ k, alpha })),
      ({ k, alpha }) =>
        new Map([...lexical].map(([q, s]) => [q, rrf(s, dense.get(q) ?? [], k!, alpha!, depth).map(([id]) => id)])),
    );
    const dbsfPick = pick([0.2, 0.3, 0.5], (alpha) => {
      return new Map([...lexical].map(([q, s]) => [q, dbsf(s, dense.get(q) ?? [], alpha, depth).map(([id]) => id)]));
    });
    return [
      [`${name} + dense, RRF k ${rrfPick.option.k} weight ${rrfPick.option.alpha}`, rrfPick.ranking] as const,
      [`${name} + dense, DBSF weight ${dbsfPick.option}`, dbsfPick.ranking] as const,
    ];
  };
  const p = tunedBm25.option;
  const r = prf.option;
  const systems: (readonly [string, Map<number, string[]>])[] = [
    ['BM25 (GoDB defaults k1 1.2, b 0.75, title 2)', idsOf(bm25)],
    [`BM25 tuned (k1 ${p.k1}, b ${p.b}, title ${p.title})`, tunedBm25.ranking],
    [`BM25 + RM3 (${r.docs} docs, ${r.terms} terms, original ${r.original})`, prf.ranking],
    ['dense (use-lite-512)', idsOf(dense)],
    ...fused(bm25, 'BM25'),
    ...fused(prfRankings, 'BM25 + RM3'),
  ];
  const rows = systems.map(([system, ranking]) => {
    const h = halves(c, ranking);
    return {
      system,
      'tuning nDCG@10': h.tuning.ndcg10.toFixed(4),
      'held-out nDCG@10': h.heldOut.ndcg10.toFixed(4),
      'held-out MAP': h.heldOut.map.toFixed(4),
      'all nDCG@10': h.all.ndcg10.toFixed(4),
      'all MAP': h.all.map.toFixed(4),
    };
  });
  process.stdout.write('\nDecision 0071: chosen on the odd queries, reported on the even ones (held out) and all:\n');
  table(rows);
  return rows;
}
