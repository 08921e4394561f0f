import { createError, type AnalysisSettings } from '@godb/contract';
import { foldedWords } from './tokenize.js';

/**
 * A collection's analysis settings as given, checked beyond their schema (which bounds their shape, the language and
 * the list names): every stop word and synonym must hold a word (letters or digits). Answers them without empty
 * parts (undefined when nothing is set); a 400 names the field at fault.
 */
export function checkedAnalysis(given: AnalysisSettings, field: string): AnalysisSettings | undefined {
  const wordless = (text: string) => foldedWords(text).length === 0;
  if (Array.isArray(given.stop_words)) {
    const at = given.stop_words.findIndex(wordless);
    if (at >= 0) throw noWord(`${field}.stop_words[${at}]`, 'a stop word');
  }
  given.synonyms?.forEach((group, i) => {
    const at = group.findIndex(wordless);
    if (at >= 0) throw noWord(`${field}.synonyms[${i}][${at}]`, 'a synonym');
  });
  const out: AnalysisSettings = {
    ...(given.language !== undefined && { language: given.language }),
    ...(given.stop_words !== undefined && { stop_words: given.stop_words }),
    ...(given.synonyms !== undefined && given.synonyms.length > 0 && { synonyms: given.synonyms }),
  };
  return Object.keys(out).length > 0 ? out : undefined;
}

const noWord = (field: string, what: string) =>
  createError('VALIDATION_FAILED', { detail: `${field}: ${what} must hold a word (letters or digits)` }, { field });
