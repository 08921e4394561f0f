import { stopwords as english } from '@orama/stopwords/english';
import { indexTerms, stem } from '../server/src/engine/text/tokenize.js';
import { evaluate, type Cranfield } from './cranfield.js';

/** One ranked list: document ids with scores, best first. */
export type Scored = [id: string, score: number][];

/** BM25 parameters of the direct scorer below (GoDB's defaults: k1 1.2, b 0.75, title × 2). */
export interface Bm25Params {
  readonly k1: number;
  readonly b: number;
  readonly title: number;
}

/** RM3 pseudo-relevance feedback: `docs` feedback documents, `terms` expansion terms, original query weight. */
export interface Rm3Params {
  readonly docs: number;
  readonly terms: number;
  readonly original: number;
}

/** The fixed split (decision 0071, same as 0061): odd query numbers tune, even ones are held out. */
export const tuningHalf = (c: Cranfield): Cranfield => half(c, 1);
export const heldOutHalf = (c: Cranfield): Cranfield => half(c, 0);
const half = (c: Cranfield, parity: number): Cranfield => ({
  ...c,
  qrels: new Map([...c.qrels].filter(([q]) => q % 2 === parity)),
});

/**
 * A direct document-level BM25 over Cranfield's analysed title and text (the engine's formula: FTS5's idf, title
 * occurrences weighted `title`, length in terms), with RM3 query expansion on top. Used by the bench to tune
 * k1/b and RM3 on the tuning half; at GoDB's defaults it ranks as GoDB text does (the bench prints both).
 */
export function lexicalModel(c: Cranfield) {
  const docs = c.docs.map((d) => {
    const title = indexTerms(d.title);
    const text = indexTerms(d.text);
    const tf = new Map<string, { title: number; text: number }>();
    for (const t of title) (tf.get(t) ?? tf.set(t, { title: 0, text: 0 }).get(t)!).title += 1;
    for (const t of text) (tf.get(t) ?? tf.set(t, { title: 0, text: 0 }).get(t)!).text += 1;
    return { id: d.id, tf, length: title.length + text.length };
  });
  const postings = new Map<string, number[]>();
  docs.forEach((d, i) => {
    for (const t of d.tf.keys()) (postings.get(t) ?? postings.set(t, []).get(t)!).push(i);
  });
  const n = docs.length;
  const avg = docs.reduce((s, d) => s + d.length, 0) / n;
  const idf = (t: string) => {
    const df = postings.get(t)?.length ?? 0;
    const v = Math.log((n - df + 0.5) / (df + 0.5));
    return v <= 0 ? 1e-6 : v;
  };
  const stop = new Set(english.map((w) => stem(w)));
  const queryTerms = new Map(c.queries.map((q) => [q.id, weights(indexTerms(q.text))]));

  /** BM25 of every document holding a term of the weighted query, best first, at most `depth`. */
  const bm25 = (query: Map<string, number>, p: Bm25Params, depth: number): Scored => {
    const scores = new Map<number, number>();
    for (const [t, w] of query) {
      const list = postings.get(t);
      if (!list) continue;
      const weight = w * idf(t);
      for (const i of list) {
        const d = docs[i]!;
        const f = d.tf.get(t)!;
        const freq = f.title * p.title + f.text;
        const norm = p.k1 * (1 - p.b + (p.b * d.length) / avg);
        scores.set(i, (scores.get(i) ?? 0) + (weight * (freq * (p.k1 + 1))) / (freq + norm));
      }
    }
    return [...scores]
      .sort((x, y) => y[1] - x[1] || x[0] - y[0])
      .slice(0, depth)
      .map(([i, s]) => [docs[i]!.id, s]);
  };
  const byId = new Map(docs.map((d) => [d.id, d]));

  /**
   * RM3 (Lavrenko & Croft's relevance model 1 mixed with the query, as Anserini's Rm3): the top `docs` of the first
   * ranking, each weighted by its share of their scores, give P(w|R) = Σ P(w|D) P(D|Q) (P(w|D) = tf / |D|, title
   * occurrences counted once, stop words and numbers left out); the best `terms` words, normalised to sum 1, are
   * mixed with the query's own weights (normalised likewise) as original × query + (1 − original) × expansion.
   */
  const rm3 = (query: Map<string, number>, first: Scored, r: Rm3Params): Map<string, number> => {
    const top = first.slice(0, r.docs);
    const total = top.reduce((s, [, v]) => s + v, 0);
    const model = new Map<string, number>();
    for (const [id, score] of top) {
      const d = byId.get(id)!;
      for (const [t, f] of d.tf) {
        if (stop.has(t) || /^\d/.test(t)) continue;
        model.set(t, (model.get(t) ?? 0) + ((f.title + f.text) / d.length) * (score / total));
      }
    }
    const expansion = [...model].sort((x, y) => y[1] - x[1] || (x[0] < y[0] ? -1 : 1)).slice(0, r.terms);
    const expansionSum = expansion.reduce((s, [, v]) => s + v, 0);
    const querySum = [...query.values()].reduce((s, v) => s + v, 0);
    const out = new Map<string, number>();
    for (const [t, w] of query) out.set(t, (r.original * w) / querySum);
    for (const [t, w] of expansion) out.set(t, (out.get(t) ?? 0) + ((1 - r.original) * w) / expansionSum);
    return out;
  };

  /** Every query ranked by BM25, then (with `r`) re-ranked by the RM3-expanded query. */
  const rankAll = (p: Bm25Params, depth: number, r?: Rm3Params): Map<number, Scored> => {
    const out = new Map<number, Scored>();
    for (const [qid, q] of queryTerms) {
      const first = bm25(q, p, r ? Math.max(depth, r.docs) : depth);
      out.set(qid, r ? bm25(rm3(q, first, r), p, depth) : first);
    }
    return out;
  };
  return { rankAll, bm25, rm3 };
}

/** A query's terms with their counts (a repeated word weighs more, as in GoDB's index). */
function weights(terms: readonly string[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const t of terms) out.set(t, (out.get(t) ?? 0) + 1);
  return out;
}

/** Rankings as ids only. */
export const idsOf = (r: Map<number, Scored>): Map<number, string[]> =>
  new Map([...r].map(([q, s]) => [q, s.map(([id]) => id)]));

/** nDCG@10 and MAP on the tuning half, the held-out half and all queries. */
export function halves(c: Cranfield, r: Map<number, string[]>) {
  const t = evaluate(tuningHalf(c), r);
  const h = evaluate(heldOutHalf(c), r);
  const a = evaluate(c, r);
  return { tuning: t, heldOut: h, all: a };
}

/** Reciprocal-rank fusion of two lists with constant k and weights (1 − alpha) text, alpha dense. */
export function rrf(text: Scored, dense: Scored, k: number, alpha: number, depth: number): Scored {
  const out = new Map<string, number>();
  text.forEach(([id], i) => out.set(id, (out.get(id) ?? 0) + (1 - alpha) / (k + i + 1)));
  dense.forEach(([id], i) => out.set(id, (out.get(id) ?? 0) + alpha / (k + i + 1)));
  return top(out, depth);
}

/**
 * Distribution-based score fusion: each side's scores mapped by (s − (μ − 3σ)) / 6σ, clamped to [0, 1], a
 * document a side did not return 0, summed with weights (1 − alpha) text, alpha dense.
 */
export function dbsf(text: Scored, dense: Scored, alpha: number, depth: number): Scored {
  const out = new Map<string, number>();
  const add = (list: Scored, w: number) => {
    if (list.length === 0) return;
    const mean = list.reduce((s, [, v]) => s + v, 0) / list.length;
    const sd = Math.sqrt(list.reduce((s, [, v]) => s + (v - mean) ** 2, 0) / list.length) || 1;
    for (const [id, v] of list) {
      const x = Math.min(1, Math.max(0, (v - (mean - 3 * sd)) / (6 * sd)));
      out.set(id, (out.get(id) ?? 0) + w * x);
    }
  };
  add(text, 1 - alpha);
  add(dense, alpha);
  return top(out, depth);
}

function top(scores: Map<string, number>, depth: number): Scored {
  return [...scores]
    .sort((x, y) => y[1] - x[1] || (x[0] < y[0] ? -1 : 1))
    .slice(0, depth)
    .map(([id, s]) => [id, s]);
}
