import { Type, type Static } from '@sinclair/typebox';
import { Enum } from './common.js';

/**
 * The languages text is analysed in (issue #42): a document's `lang_code` picks its stemmer, a text search's `lang`
 * the query's. English is the original Porter stemmer; the others are Snowball stemmers.
 */
export const analysisLanguages = [
  'en',
  'de',
  'fr',
  'es',
  'it',
  'pt',
  'nl',
  'sv',
  'da',
  'no',
  'fi',
  'ru',
  'hu',
  'ro',
  'tr',
] as const;
export type AnalysisLanguage = (typeof analysisLanguages)[number];

/** The named stop-word lists a collection can use (`analysis.stop_words`). */
export const stopWordLists = [
  'english',
  'german',
  'french',
  'spanish',
  'italian',
  'portuguese',
  'dutch',
  'swedish',
  'danish',
  'norwegian',
  'finnish',
  'russian',
  'hungarian',
  'romanian',
  'turkish',
] as const;
export type StopWordList = (typeof stopWordLists)[number];

/** Bounds of a collection's analysis settings. */
export const analysisLimits = { stopWords: 2000, synonymGroups: 1000, synonymsPerGroup: 32, word: 100 } as const;

export const AnalysisLanguageParam = (description: string) =>
  Enum(analysisLanguages, {
    description: `${description} One of ${analysisLanguages.join(', ')} (English: Porter; the others: Snowball).`,
  });

export const AnalysisSettings = Type.Object(
  {
    language: Type.Optional(
      AnalysisLanguageParam(
        'The language a text search of this collection is analysed in when it gives no `lang` (default en). Documents are analysed by their own lang_code.',
      ),
    ),
    stop_words: Type.Optional(
      Type.Union(
        [
          Enum(stopWordLists, { description: 'A named list.' }),
          Type.Array(Type.String({ minLength: 1, maxLength: analysisLimits.word }), {
            maxItems: analysisLimits.stopWords,
            description: 'Your own words.',
          }),
        ],
        {
          description: `Words a text search of this collection leaves out of a match query (not out of a phrase, and not when every word is one): a named list (${stopWordLists.join(', ')}) or your own words. Compared without case or accents. Changing it needs no rebuild: documents keep every word.`,
        },
      ),
    ),
    synonyms: Type.Optional(
      Type.Array(
        Type.Array(Type.String({ minLength: 1, maxLength: analysisLimits.word }), {
          minItems: 2,
          maxItems: analysisLimits.synonymsPerGroup,
        }),
        {
          maxItems: analysisLimits.synonymGroups,
          description:
            'Groups of words that mean the same, e.g. [["car", "automobile"], ["tv", "television"]]: a query word of a group also matches the others (expanded at query time, in a match query and in a wildcard query’s plain words; the answer’s notes say what was added). Changing them needs no rebuild.',
        },
      ),
    ),
  },
  { additionalProperties: false },
);
export type AnalysisSettings = Static<typeof AnalysisSettings>;
