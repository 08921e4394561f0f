import { createError } from '@godb/contract';
import { fieldValue } from './filters.js';
import { textMatch } from './fts-query.js';
import type { Hit, LoadedDocument, Scope, SearchCore } from './search-core.js';

const facetable = ['tags', 'categories', 'primary_table', 'lang_code', 'visibility', 'file_type', 'cluster'];

/**
 * Documents matching the query (any word, BM25; every readable document when there is no query, newest first)
 * with, for each facet, the count of matching documents per value, most frequent first (top 50 values).
 */
export function facetedSearch(
  core: SearchCore,
  scope: Scope,
  query: string | undefined,
  facets: readonly string[],
): { hits: Hit[]; facets: Record<string, { value: string; count: number }[]> } {
  facets.forEach((facet, i) => {
    if (!facetable.includes(facet) && !/^metadata\.[^.]+$/.test(facet)) {
      throw createError(
        'VALIDATION_FAILED',
        { detail: `body.facets[${i}] must be one of: ${facetable.join(', ')}, metadata.<key>` },
        { field: `body.facets[${i}]` },
      );
    }
  });
  const match = query ? textMatch(query, 'match') : undefined;
  let hits: Hit[];
  if (match) hits = core.textHits(scope, match);
  else if (query && query.trim() !== '') hits = [];
  else {
    hits = core
      .all(scope)
      .filter((doc) => core.accept(doc, scope).ok)
      .map((doc: LoadedDocument) => ({ doc, score: 1, chunks: [] }));
  }
  const counts: Record<string, { value: string; count: number }[]> = {};
  for (const facet of facets) {
    const tally = new Map<string, number>();
    for (const hit of hits) {
      const value = fieldValue(hit.doc, facet);
      const values = Array.isArray(value)
        ? new Set(value.map(String))
        : value === undefined || value === null
          ? []
          : [String(value)];
      for (const v of values) tally.set(v, (tally.get(v) ?? 0) + 1);
    }
    counts[facet] = [...tally]
      .map(([value, count]) => ({ value, count }))
      .sort((a, b) => b.count - a.count || a.value.localeCompare(b.value))
      .slice(0, 50);
  }
  return { hits, facets: counts };
}
