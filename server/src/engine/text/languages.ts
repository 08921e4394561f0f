import { stemmer as danish } from '@orama/stemmers/danish';
import { stemmer as dutch } from '@orama/stemmers/dutch';
import { stemmer as finnish } from '@orama/stemmers/finnish';
import { stemmer as french } from '@orama/stemmers/french';
import { stemmer as german } from '@orama/stemmers/german';
import { stemmer as hungarian } from '@orama/stemmers/hungarian';
import { stemmer as italian } from '@orama/stemmers/italian';
import { stemmer as norwegian } from '@orama/stemmers/norwegian';
import { stemmer as portuguese } from '@orama/stemmers/portuguese';
import { stemmer as romanian } from '@orama/stemmers/romanian';
import { stemmer as russian } from '@orama/stemmers/russian';
import { stemmer as spanish } from '@orama/stemmers/spanish';
import { stemmer as swedish } from '@orama/stemmers/swedish';
import { stemmer as turkish } from '@orama/stemmers/turkish';
import { analysisLanguages, type AnalysisLanguage } from '@godb/contract';
import { stemmer as porter } from 'stemmer';

/**
 * The stemmer of each analysis language. English keeps the original Porter stemmer (the `stemmer` package, the
 * same as FTS5's `porter` tokenizer GoDB used before per-language analysis), so English ranking is unchanged; the
 * others are the Snowball stemmers of @orama/stemmers (generated from the Snowball sources). Each is given a word
 * already folded (lower case, diacritics removed), so an accented and an unaccented spelling stem alike.
 */
const stemmers: Record<AnalysisLanguage, (word: string) => string> = {
  en: porter,
  de: german,
  fr: french,
  es: spanish,
  it: italian,
  pt: portuguese,
  nl: dutch,
  sv: swedish,
  da: danish,
  no: norwegian,
  fi: finnish,
  ru: russian,
  hu: hungarian,
  ro: romanian,
  tr: turkish,
};

/** The stemmer of a language (of folded words). */
export function stemmerOf(language: AnalysisLanguage): (word: string) => string {
  return stemmers[language];
}

const known = new Set<string>(analysisLanguages);

/** Whether a code is one of the analysis languages. */
export function isAnalysisLanguage(code: string): code is AnalysisLanguage {
  return known.has(code);
}

/**
 * The analysis language of a document's `lang_code`: its primary subtag ("de-AT" → de, "PT_br" → pt) when GoDB has a
 * stemmer for it; any other code (or none) is analysed as English, as every document was before per-language
 * analysis, so existing documents of other codes keep their terms.
 */
export function documentLanguage(langCode: string | null | undefined): AnalysisLanguage {
  if (!langCode) return 'en';
  const primary = langCode.toLowerCase().split(/[-_]/)[0]!;
  if (primary === 'nb' || primary === 'nn') return 'no';
  return isAnalysisLanguage(primary) ? primary : 'en';
}
