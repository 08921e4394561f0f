import type { AnalysisLanguage } from '@godb/contract';
import { takeAnalysed } from './analysed-ahead.js';
import { stemmerOf } from './languages.js';

/**
 * The engine's text analysis (issue #42): diacritics folded, lower-cased, split on anything that is not a letter, a
 * number or a private-use character (as FTS5's `unicode61 remove_diacritics 2`), then each word stemmed in the text's
 * language (languages.ts: English by the original Porter stemmer, as before; the others by Snowball). Folding comes
 * before stemming, so "été" and "ete" give one term: unaccented matching.
 *
 * The analysis runs once, here, for both indexes: the FTS5 tables store the analysed text (the terms, separated by
 * spaces) and split it on spaces only, and the in-memory BM25 index reads the same terms (see analysedTerms), so
 * the two always hold the same token stream.
 */
const separators = /[^\p{L}\p{N}\p{Co}]+/u;
/**
 * The version of this analysis (folding, separators, stemmers, what the FTS5 tables hold). Bump it with any change
 * here: a BM25 index checkpoint (bm25-file.ts) records the version its terms were made with, and one of another
 * version is not read back (it is rebuilt from the FTS5 tables). Version 1: FTS5's porter tokenizer over the raw
 * text, English for every document; 2: the terms analysed here, in each document's language.
 */
export const analysisVersion = 2;
/** Distinct words whose stems are remembered per language; a cache is emptied when full (stemming is pure). */
const maxCachedStems = 200_000;
const caches = new Map<AnalysisLanguage, { stem: (word: string) => string; stems: Map<string, string> }>();

/** Folds diacritics and case, as unicode61 with remove_diacritics 2 does. */
export function fold(text: string): string {
  // Only text with non-ASCII characters needs decomposing.
  // eslint-disable-next-line no-control-regex
  const plain = /^[\u0000-\u007f]*$/.test(text);
  return (plain ? text : text.normalize('NFKD').replace(/\p{M}/gu, '')).toLowerCase();
}

/** The stem of one folded word in a language (English, the default: Porter). */
export function stem(word: string, language: AnalysisLanguage = 'en'): string {
  let cache = caches.get(language);
  if (!cache) {
    cache = { stem: stemmerOf(language), stems: new Map() };
    caches.set(language, cache);
  }
  let s = cache.stems.get(word);
  if (s === undefined) {
    if (cache.stems.size >= maxCachedStems) cache.stems.clear();
    // A term must stay one token for FTS5 too: a stem that is empty or not one word (none is today) keeps the word.
    s = cache.stem(word);
    if (s === '' || separators.test(s) || fold(s) !== s) s = word;
    cache.stems.set(word, s);
  }
  return s;
}

/** The folded words of a text, in order, before stemming (indexTerms stems each). */
export function foldedWords(text: string): string[] {
  const out: string[] = [];
  for (const word of fold(text).split(separators)) if (word !== '') out.push(word);
  return out;
}

/** The index terms of a text in a language, in order (repeated words repeated). */
export function indexTerms(text: string, language: AnalysisLanguage = 'en'): string[] {
  return foldedWords(text).map((word) => stem(word, language));
}

/** The analysed form of a text, as the FTS5 tables store it: its index terms separated by single spaces. */
export function analysed(text: string, language: AnalysisLanguage = 'en'): string {
  return takeAnalysed(text, language) ?? indexTerms(text, language).join(' ');
}

/** The terms of analysed text (see analysed), in order. */
export function analysedTerms(text: string): string[] {
  return text === '' ? [] : text.split(' ');
}
