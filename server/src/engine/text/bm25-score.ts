import { analysedTerms } from './tokenize.js';

/** BM25 parameters (the FTS5 defaults, so scores equal FTS5's `bm25()` over the public chunks). */
export const k1 = 1.2;
export const b = 0.75;

export interface Bm25Weights {
  readonly title: number;
  readonly content: number;
}

/**
 * The corpus statistics every BM25 score of a tenant uses: those of its live public chunks only, the same for
 * every caller. A private or shared chunk is scored, but never counted: otherwise the score of a document the
 * caller may read would move when a document they cannot read uses the same word (issue #22's side channel).
 * A public chunk is readable by the whole tenant, so nothing here says anything a caller could not read.
 */
export interface CorpusStats {
  /** Live public chunks (N). */
  readonly chunks: number;
  /** Their tokens, title and content (N × the average length). */
  readonly tokens: number;
}

/**
 * Statistics given to a ranking instead of its index's own (a partitioned collection's, summed over its shards, as
 * Elasticsearch's dfs phase does): the corpus, and the public chunks holding each query term (a phrase: its terms
 * joined by a space). A term not listed counts as held by none.
 */
export interface GivenStats extends CorpusStats {
  readonly df: Readonly<Record<string, number>>;
}

/**
 * A term's document frequency in given statistics, 0 when absent. Read as an own key: `df` arrives as JSON, and a
 * term such as "constructor" would otherwise read Object.prototype's function (NaN scores).
 */
export const givenDf = (stats: Pick<GivenStats, 'df'>, term: string): number =>
  Object.hasOwn(stats.df, term) ? stats.df[term]! : 0;

/**
 * FTS5's idf for a word or phrase in `df` of the public chunks: log((N − df + 0.5) / (df + 0.5)), 1e-6 when
 * that is not positive. A word no public chunk holds (df 0) gets the highest idf, log(2N + 1). A tenant with no
 * public chunk counts as one public chunk holding no word (log 3 for every word), so its scores stay comparable
 * in size to other tenants' instead of all falling to 1e-6.
 *
 * @example idf({ chunks: 100, tokens: 5000 }, 3) // log(97.5 / 3.5) ≈ 3.33
 */
export function idf(stats: CorpusStats, df: number): number {
  const n = Math.max(1, stats.chunks);
  const value = Math.log((n - df + 0.5) / (df + 0.5));
  return value <= 0 ? 1e-6 : value;
}

/**
 * The length part of BM25's denominator, k1 × (1 − b + b × length / average length), for a chunk of `length`
 * tokens. When the public chunks hold no token (a tenant without public text), every chunk counts as of average
 * length: k1.
 */
export function lengthNorm(stats: CorpusStats, length: number): number {
  return stats.tokens > 0 ? k1 * (1 - b + (b * length) / (stats.tokens / stats.chunks)) : k1;
}

/** One word's (or phrase's) part of a chunk's score, with weighted frequency `f` (FTS5's arithmetic). */
export const termScore = (idfValue: number, f: number, norm: number): number =>
  idfValue * ((f * (k1 + 1)) / (f + norm));

/**
 * The BM25 score of one chunk, from its analysed text (as the FTS5 tables store it), for a MATCH of several phrases (a word is a phrase of one term):
 * the sum over the phrases of their idf (`df[i]` public chunks hold phrase i) times the saturated frequency of
 * their occurrences (title occurrences weighted `weights.title`, content ones `weights.content`; a phrase never
 * spans the two). This is FTS5's `bm25()` with the public statistics; FTS5's own function can only use the
 * statistics of the table it reads, so chunks outside the public table are scored here (see fts-rank.ts).
 */
export function scoreText(
  title: string,
  content: string,
  phrases: readonly (readonly string[])[],
  df: readonly number[],
  stats: CorpusStats,
  weights: Bm25Weights,
): number {
  const titleTerms = analysedTerms(title);
  const contentTerms = analysedTerms(content);
  const norm = lengthNorm(stats, titleTerms.length + contentTerms.length);
  let score = 0;
  phrases.forEach((phrase, i) => {
    const f = occurrences(titleTerms, phrase) * weights.title + occurrences(contentTerms, phrase) * weights.content;
    if (f > 0) score += termScore(idf(stats, df[i]!), f, norm);
  });
  return score;
}

/** How many times `phrase` occurs in `terms` (overlapping occurrences each count, as in FTS5). */
function occurrences(terms: readonly string[], phrase: readonly string[]): number {
  if (phrase.length === 0) return 0;
  let count = 0;
  for (let at = 0; at + phrase.length <= terms.length; at += 1) {
    let k = 0;
    while (k < phrase.length && terms[at + k] === phrase[k]) k += 1;
    if (k === phrase.length) count += 1;
  }
  return count;
}
