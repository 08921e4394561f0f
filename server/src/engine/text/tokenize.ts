import { stemmer } from 'stemmer';

/**
 * The engine's text analysis, the same as the FTS5 tables' `porter unicode61 remove_diacritics 2`: diacritics
 * folded, lower-cased, split on anything that is not a letter, a number or a private-use character, then the
 * original Porter stemmer on each word (words shorter than three letters are kept as they are).
 */
const separators = /[^\p{L}\p{N}\p{Co}]+/u;
/**
 * The version of this analysis (folding, separators, stemmer). Bump it with any change here: a BM25 index checkpoint
 * (bm25-file.ts) records the version its terms were made with, and one of another version is not read back.
 */
export const analysisVersion = 1;
const stems = new Map<string, string>();
/** Distinct words whose stems are remembered; the cache is emptied when full (stemming is pure). */
const maxCachedStems = 200_000;

/** Folds diacritics and case, as unicode61 with remove_diacritics 2 does. */
export function fold(text: string): string {
  // Only text with non-ASCII characters needs decomposing.
  // eslint-disable-next-line no-control-regex
  const plain = /^[\u0000-\u007f]*$/.test(text);
  return (plain ? text : text.normalize('NFKD').replace(/\p{M}/gu, '')).toLowerCase();
}

/** The Porter stem of one folded word. */
export function stem(word: string): string {
  let s = stems.get(word);
  if (s === undefined) {
    if (stems.size >= maxCachedStems) stems.clear();
    s = stemmer(word);
    stems.set(word, s);
  }
  return s;
}

/** The folded words of a text, in order, before stemming (indexTerms stems each). */
export function foldedWords(text: string): string[] {
  const out: string[] = [];
  for (const word of fold(text).split(separators)) if (word !== '') out.push(word);
  return out;
}

/** The index terms of a text, in order (repeated words repeated). */
export function indexTerms(text: string): string[] {
  return foldedWords(text).map(stem);
}
