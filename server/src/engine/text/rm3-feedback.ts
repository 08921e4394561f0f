import type { AnalysisLanguage } from '@godb/contract';
import { languageStopWords } from './stop-words.js';
import { stem } from './tokenize.js';

/** RM3 pseudo-relevance feedback as a text query asks for it (issue #42, docs/decisions/0074). */
export interface FeedbackOptions {
  /** The best documents of the first ranking that the expansion terms come from. */
  readonly docs: number;
  /** Expansion terms added to the query. */
  readonly terms: number;
  /** The original query's share of the expanded query (the expansion has the rest). */
  readonly original_weight: number;
}

/** One feedback document: its index terms (title and content, each occurrence once) and its first-pass score. */
export interface FeedbackDocument {
  readonly terms: readonly string[];
  readonly score: number;
  readonly language: AnalysisLanguage;
}

/** A weighted query term, as explain answers it. */
export interface WeightedTerm {
  readonly term: string;
  readonly weight: number;
}

/** What feedback did, as explain answers it: the feedback documents' ids and the weighted query ranked second. */
export interface FeedbackExplained {
  readonly documents: string[];
  readonly terms: WeightedTerm[];
}

const byWeight = (x: readonly [string, number], y: readonly [string, number]) =>
  y[1] - x[1] || (x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : 0);

/** Stop words of each language stemmed in it, made once per language. */
const stemmedStops = new Map<AnalysisLanguage, ReadonlySet<string>>();

/** The index terms of a language's named stop-word list (English: @orama/stopwords' list, Porter-stemmed). */
function stopTerms(language: AnalysisLanguage): ReadonlySet<string> {
  let set = stemmedStops.get(language);
  if (!set) {
    set = new Set(languageStopWords(language).map((w) => stem(w, language)));
    stemmedStops.set(language, set);
  }
  return set;
}

/**
 * The relevance model of the feedback documents (Lavrenko & Croft's RM1, as Anserini's Rm3): each document weighted
 * by its share of their first-pass scores, P(w|R) = Σ P(w|D) P(D|Q) with P(w|D) = tf / |D|; stop words (the
 * document language's list, and `collectionStops`, folded words stemmed in that language) and terms starting with a
 * digit are left out, since they carry no topic. The best `terms` words, ties by term, best first.
 */
export function relevanceModel(
  docs: readonly FeedbackDocument[],
  terms: number,
  collectionStops: ReadonlySet<string> = new Set(),
): [string, number][] {
  const total = docs.reduce((s, d) => s + d.score, 0);
  const model = new Map<string, number>();
  for (const d of docs) {
    if (d.terms.length === 0) continue;
    // Scores of 0 (every term's idf floored) still say these are the best documents: weighted alike then.
    const share = total > 0 ? d.score / total : 1 / docs.length;
    const stops = stopTerms(d.language);
    const own = collectionStops.size > 0 ? new Set([...collectionStops].map((w) => stem(w, d.language))) : undefined;
    const tf = new Map<string, number>();
    for (const t of d.terms) tf.set(t, (tf.get(t) ?? 0) + 1);
    for (const [t, f] of tf) {
      if (stops.has(t) || own?.has(t) || /^\p{Nd}/u.test(t)) continue;
      model.set(t, (model.get(t) ?? 0) + (f / d.terms.length) * share);
    }
  }
  return [...model].sort(byWeight).slice(0, terms);
}

/**
 * RM3's expanded query: the original query's weights (its terms' counts) and the expansion's, each normalised to sum
 * 1, mixed as original × query + (1 − original) × expansion. Best first, ties by term.
 */
export function expandedQuery(
  query: ReadonlyMap<string, number>,
  expansion: readonly (readonly [string, number])[],
  original: number,
): WeightedTerm[] {
  const querySum = [...query.values()].reduce((s, v) => s + v, 0);
  const expansionSum = expansion.reduce((s, [, v]) => s + v, 0);
  const out = new Map<string, number>();
  if (querySum > 0) for (const [t, w] of query) out.set(t, (original * w) / querySum);
  if (expansionSum > 0)
    for (const [t, w] of expansion) out.set(t, (out.get(t) ?? 0) + ((1 - original) * w) / expansionSum);
  return [...out]
    .filter(([, w]) => w > 0)
    .sort(byWeight)
    .map(([term, weight]) => ({ term, weight }));
}
