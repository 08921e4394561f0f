import { documentLanguage } from '../text/languages.js';
import { hitHighlights } from '../text/highlight.js';
import type { Hit } from './hit.js';
import type { SearchResultView } from './result-view.js';

/**
 * The answer with each result's `highlights` (text/highlight.ts): the passages of its shown chunks holding the
 * query's index `terms`, each chunk analysed in its document's language.
 */
export function withHighlights<T extends { results: SearchResultView[] }>(
  answer: T,
  hits: readonly Hit[],
  terms: ReadonlySet<string>,
): T {
  const languages = new Map(hits.map((h) => [h.doc.id, h.doc.fields.lang_code]));
  return {
    ...answer,
    results: answer.results.map((result) => ({
      ...result,
      highlights: hitHighlights(
        result.chunks.map((c) => c.content),
        terms,
        documentLanguage(languages.get(result.document_id) as string | undefined),
      ),
    })),
  };
}
