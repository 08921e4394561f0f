import type { AnalysisLanguage } from '@godb/contract';

/**
 * Analysed texts (see tokenize.ts `analysed`) computed ahead of their write on an import worker thread (issue #40),
 * each taken once by the write that indexes it, so the writer thread does not tokenize and stem them again. The
 * analysis is pure, so a text found here is exactly what the writer would compute; one not found is analysed as
 * before. Bounded: emptied when full (a line that failed leaves its texts behind until then).
 */
const ahead = new Map<string, string>();
const maxAhead = 20_000;

const keyOf = (text: string, language: AnalysisLanguage) => `${language}\u0000${text}`;

/** Offers the analysed form of `text`, computed elsewhere, to the next write that indexes it. */
export function offerAnalysed(text: string, language: AnalysisLanguage, terms: string): void {
  if (ahead.size >= maxAhead) ahead.clear();
  ahead.set(keyOf(text, language), terms);
}

/** The analysed form of `text` if it was offered (and takes it), else undefined. */
export function takeAnalysed(text: string, language: AnalysisLanguage): string | undefined {
  if (ahead.size === 0) return undefined;
  const key = keyOf(text, language);
  const terms = ahead.get(key);
  if (terms !== undefined) ahead.delete(key);
  return terms;
}
