import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The Cranfield collection (../shared/data/cranfield): 1,400 abstracts, 225 queries, graded judgements. */
export interface Cranfield {
  readonly docs: { id: string; title: string; text: string }[];
  readonly queries: { id: number; text: string }[];
  /** query id → document id → gain (4 for code 1 "complete answer" … 1 for code 4 "minimum interest"). */
  readonly qrels: Map<number, Map<string, number>>;
}

const dir = fileURLToPath(new URL('../../shared/data/cranfield/', import.meta.url));

function fields(record: string): Record<string, string> {
  const out: Record<string, string> = {};
  let current = '';
  for (const line of record.split('\n').slice(1)) {
    const marker = /^\.([TABW])\s*$/.exec(line);
    if (marker) current = marker[1]!;
    else if (current) out[current] = `${out[current] ?? ''} ${line}`.trim();
  }
  return out;
}

export function loadCranfield(): Cranfield {
  const docs = readFileSync(`${dir}cran.all.1400`, 'utf8')
    .split(/^\.I /m)
    .filter((r) => r.trim())
    .map((record) => {
      const f = fields(record);
      return { id: record.split('\n')[0]!.trim(), title: f.T ?? '', text: f.W ?? '' };
    });
  // cran.qry numbers its queries 001, 002, 004, …; the judgements number them 1..225 in order.
  const queries = readFileSync(`${dir}cran.qry`, 'utf8')
    .split(/^\.I /m)
    .filter((r) => r.trim())
    .map((record, i) => ({ id: i + 1, text: fields(record).W ?? '' }));
  const qrels = new Map<number, Map<string, number>>();
  for (const line of readFileSync(`${dir}cranqrel`, 'utf8').split('\n')) {
    const [q, d, code] = line.trim().split(/\s+/).map(Number);
    if (!q || !d || code === undefined || code < 1 || code > 4) continue;
    const judged = qrels.get(q) ?? new Map<string, number>();
    judged.set(String(d), 5 - code);
    qrels.set(q, judged);
  }
  return { docs, queries, qrels };
}

/** nDCG@10 (graded gains 2^g − 1), MAP (binary, over the ranking given) and P@10, averaged over judged queries. */
export function evaluate(c: Cranfield, rankings: Map<number, string[]>): { ndcg10: number; map: number; p10: number } {
  let ndcg = 0;
  let map = 0;
  let p10 = 0;
  let n = 0;
  for (const [qid, judged] of c.qrels) {
    const ranking = rankings.get(qid) ?? [];
    n += 1;
    const dcg = ranking.slice(0, 10).reduce((sum, d, i) => sum + (2 ** (judged.get(d) ?? 0) - 1) / Math.log2(i + 2), 0);
    const ideal = [...judged.values()]
      .sort((a, b) => b - a)
      .slice(0, 10)
      .reduce((sum, g, i) => sum + (2 ** g - 1) / Math.log2(i + 2), 0);
    ndcg += ideal > 0 ? dcg / ideal : 0;
    let hits = 0;
    let precisionSum = 0;
    ranking.forEach((d, i) => {
      if (judged.has(d)) {
        hits += 1;
        precisionSum += hits / (i + 1);
      }
    });
    map += precisionSum / judged.size;
    p10 += ranking.slice(0, 10).filter((d) => judged.has(d)).length / 10;
  }
  return { ndcg10: ndcg / n, map: map / n, p10: p10 / n };
}
