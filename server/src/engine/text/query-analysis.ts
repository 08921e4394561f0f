import type { AnalysisLanguage, AnalysisSettings } from '@godb/contract';
import { stopWordsOf } from './stop-words.js';
import { fold, foldedWords, indexTerms, stem } from './tokenize.js';

/**
 * How a keyword query is analysed (issue #42): its language (the stemmer; the request's `lang`, else its
 * collection's `analysis.language`, else English), the collection's stop words and synonyms. Stop words and synonyms
 * apply at query time only, so changing them rebuilds nothing.
 */
export interface QueryAnalysis {
  readonly language: AnalysisLanguage;
  /** Folded stop words. */
  readonly stopWords: ReadonlySet<string>;
  /**
   * Index term (of a one-word entry, in `language`) → the words its group's other entries add (a synonym of several
   * words adds each): "cars" finds the group of "car".
   */
  readonly synonyms: ReadonlyMap<string, readonly string[]>;
}

/** English, no stop words, no synonyms: the analysis of a query of a collection without settings. */
export const defaultQueryAnalysis: QueryAnalysis = { language: 'en', stopWords: new Set(), synonyms: new Map() };

/** A query as the caller's words (queryTokens) or, analysed, as index terms: the shape of TextMatch. */
export type QueryMatch =
  | { readonly words: readonly string[] }
  | { readonly phrase: readonly string[] }
  | { readonly groups: readonly (readonly string[])[] };

const prepared = new WeakMap<AnalysisSettings, Map<AnalysisLanguage, QueryAnalysis>>();

/**
 * The analysis of a query of a collection with these settings in `lang` (default: the settings' language, else
 * English). The stop words and synonyms of one settings object are prepared once (settings are frozen and kept by
 * Collections while unchanged).
 */
export function queryAnalysis(settings: AnalysisSettings | undefined, lang?: AnalysisLanguage): QueryAnalysis {
  const language = lang ?? settings?.language ?? 'en';
  if (!settings) return language === 'en' ? defaultQueryAnalysis : { ...defaultQueryAnalysis, language };
  let languages = prepared.get(settings);
  if (!languages) prepared.set(settings, (languages = new Map()));
  let ready = languages.get(language);
  if (!ready) {
    const stopWords = languages.values().next().value?.stopWords ?? stopWordsOf(settings.stop_words);
    ready = { language, stopWords, synonyms: synonymMap(settings.synonyms ?? [], language) };
    languages.set(language, ready);
  }
  return ready;
}

/** Every one-word entry of a group (by its index term) adds the words of the group's other entries. */
function synonymMap(groups: readonly (readonly string[])[], language: AnalysisLanguage): Map<string, string[]> {
  const out = new Map<string, Set<string>>();
  for (const group of groups) {
    const entries = group.map(foldedWords).filter((words) => words.length > 0);
    for (const entry of entries) {
      // Only a one-word entry is matched against a query word; every entry's words are added.
      if (entry.length !== 1) continue;
      const key = stem(entry[0]!, language);
      let adds = out.get(key);
      if (!adds) out.set(key, (adds = new Set()));
      for (const other of entries)
        if (other !== entry) for (const word of other) if (stem(word, language) !== key) adds.add(word);
    }
  }
  return new Map([...out].map(([word, adds]) => [word, [...adds]]));
}

/**
 * A match of the caller's words analysed into index terms, in the query's language: a match query leaves out its
 * stop words (unless every word is one) and adds the synonyms of each word (any word matches); a phrase keeps
 * every word as it is (stemmed); a wildcard query's plain words (groups of one) get their synonyms as alternatives.
 * `notes` say what was left out and added, `terms` are every term the match may find (highlighting marks them).
 */
export function analyseMatch(
  match: QueryMatch,
  analysis: QueryAnalysis,
): { match: QueryMatch; notes: string[]; terms: Set<string> } {
  const terms = (word: string) => indexTerms(word, analysis.language);
  const notes: string[] = [];
  const added: string[] = [];
  const synonymsOf = (word: string): readonly string[] => {
    const adds = analysis.synonyms.get(stem(fold(word), analysis.language)) ?? [];
    if (adds.length > 0) added.push(`${word} → ${adds.join(', ')}`);
    return adds;
  };
  let out: QueryMatch;
  if ('phrase' in match) out = { phrase: match.phrase.flatMap(terms) };
  else if ('words' in match) {
    const kept = match.words.filter((w) => !analysis.stopWords.has(fold(w)));
    const words = kept.length > 0 ? kept : match.words;
    const left = match.words.filter((w) => !words.includes(w));
    if (left.length > 0) notes.push(`stop words left out: ${[...new Set(left)].join(', ')}`);
    const synonyms = [...new Set(words)].flatMap(synonymsOf);
    out = { words: [...words, ...synonyms].flatMap(terms) };
  } else {
    out = {
      groups: match.groups.map((group) =>
        group.length === 1 ? [...new Set([group[0]!, ...synonymsOf(group[0]!)].flatMap(terms))] : group.flatMap(terms),
      ),
    };
  }
  if (added.length > 0) notes.push(`synonyms: ${added.join('; ')}`);
  const found = new Set('phrase' in out ? out.phrase : 'words' in out ? out.words : out.groups.flat());
  return { match: out, notes, terms: found };
}
