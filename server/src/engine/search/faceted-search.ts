import { distinctNames } from './distinct-names.js';
import { createError } from '@godb/contract';
import { nextTurn } from '../next-turn.js';
import { fieldValue } from './filters.js';
import { textMatch } from './fts-query.js';
import type { Hit, LoadedDocument } from './hit.js';
import type { Scope } from './scope.js';
import type { SearchCore } from './search-core.js';

const facetable = ['tags', 'categories', 'primary_table', 'lang_code', 'visibility', 'file_type', 'cluster'];

/**
 * Distinct facets one search counts. The contract bounds the list more tightly; this keeps the engine's cost
 * (facets × matching documents) bounded whoever calls it: 100,000 facets took 20 s of blocked event loop.
 */
export const maxFacets = 64;
/** Matching documents tallied per turn of the event loop. */
const hitsPerSlice = 2000;

/** The facets asked for, each once, in their first order; every name checked. */
function facetsOf(facets: readonly string[]): string[] {
  facets.forEach((facet, i) => {
    if (!facetable.includes(facet) && !/^metadata\.[^.]+(\.[^.]+)*$/.test(facet)) {
      throw createError(
        'VALIDATION_FAILED',
        { detail: `body.facets[${i}] must be one of: ${facetable.join(', ')}, metadata.<key>` },
        { field: `body.facets[${i}]` },
      );
    }
  });
  return distinctNames(facets, maxFacets, 'body.facets', 'facets');
}

/** A value as a facet shows it: objects (metadata may nest) as their JSON. */
const facetValue = (value: unknown) =>
  value !== null && typeof value === 'object' ? JSON.stringify(value) : String(value);

/**
 * Documents matching the query (any word, BM25; every readable document when there is no query, newest first)
 * with, for each facet, the count of matching documents per value, most frequent first (top 50 values).
 * Counting yields to other requests every 2,000 documents and stops when `signal` aborts.
 */
export async function facetedSearch(
  core: SearchCore,
  scope: Scope,
  query: string | undefined,
  facets: readonly string[],
  signal?: AbortSignal,
): Promise<{ hits: Hit[]; facets: Record<string, { value: string; count: number }[]> }> {
  const names = facetsOf(facets);
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
  const tallies = names.map(() => new Map<string, number>());
  for (let start = 0; start < hits.length; start += hitsPerSlice) {
    if (start > 0) await nextTurn(signal);
    for (const hit of hits.slice(start, start + hitsPerSlice)) {
      names.forEach((facet, f) => {
        const value = fieldValue(hit.doc, facet);
        const values = Array.isArray(value)
          ? new Set(value.map(facetValue))
          : value === undefined || value === null
            ? []
            : [facetValue(value)];
        const tally = tallies[f]!;
        for (const v of values) tally.set(v, (tally.get(v) ?? 0) + 1);
      });
    }
  }
  const counts: Record<string, { value: string; count: number }[]> = {};
  names.forEach((facet, f) => {
    counts[facet] = [...tallies[f]!]
      .map(([value, count]) => ({ value, count }))
      .sort((a, b) => b.count - a.count || a.value.localeCompare(b.value))
      .slice(0, 50);
  });
  return { hits, facets: counts };
}
