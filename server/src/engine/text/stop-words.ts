import { stopwords as danish } from '@orama/stopwords/danish';
import { stopwords as dutch } from '@orama/stopwords/dutch';
import { stopwords as english } from '@orama/stopwords/english';
import { stopwords as finnish } from '@orama/stopwords/finnish';
import { stopwords as french } from '@orama/stopwords/french';
import { stopwords as german } from '@orama/stopwords/german';
import { stopwords as hungarian } from '@orama/stopwords/hungarian';
import { stopwords as italian } from '@orama/stopwords/italian';
import { stopwords as norwegian } from '@orama/stopwords/norwegian';
import { stopwords as portuguese } from '@orama/stopwords/portuguese';
import { stopwords as romanian } from '@orama/stopwords/romanian';
import { stopwords as russian } from '@orama/stopwords/russian';
import { stopwords as spanish } from '@orama/stopwords/spanish';
import { stopwords as swedish } from '@orama/stopwords/swedish';
import { stopwords as turkish } from '@orama/stopwords/turkish';
import type { AnalysisLanguage, AnalysisSettings, StopWordList } from '@godb/contract';
import { foldedWords } from './tokenize.js';

/** The named stop-word lists (from @orama/stopwords). */
const lists: Record<StopWordList, readonly string[]> = {
  english,
  german,
  french,
  spanish,
  italian,
  portuguese,
  dutch,
  swedish,
  danish,
  norwegian,
  finnish,
  russian,
  hungarian,
  romanian,
  turkish,
};

/** The folded words of a collection's `stop_words` setting: a named list or the collection's own words. */
export function stopWordsOf(setting: AnalysisSettings['stop_words']): Set<string> {
  if (setting === undefined) return new Set();
  const words = typeof setting === 'string' ? lists[setting] : setting;
  return new Set(words.flatMap(foldedWords));
}

/** Each analysis language's named list. */
const listOfLanguage: Record<AnalysisLanguage, StopWordList> = {
  en: 'english',
  de: 'german',
  fr: 'french',
  es: 'spanish',
  it: 'italian',
  pt: 'portuguese',
  nl: 'dutch',
  sv: 'swedish',
  da: 'danish',
  no: 'norwegian',
  fi: 'finnish',
  ru: 'russian',
  hu: 'hungarian',
  ro: 'romanian',
  tr: 'turkish',
};

/** The named stop-word list of an analysis language (its words as @orama/stopwords gives them). */
export function languageStopWords(language: AnalysisLanguage): readonly string[] {
  return lists[listOfLanguage[language]];
}
