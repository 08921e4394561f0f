import { distinctNames } from './distinct-names.js';
import { createError } from '@godb/contract';
import { nextTurn } from '../next-turn.js';
import { fieldValue } from './filters.js';
import { textMatch } from './fts-query.js';
import type { Hit, LoadedDocument } from './hit.js';
import type { GivenStats } from '../text/bm25-score.js';
import type { CountedDocument, Scope } from './scope.js';
import type { SearchCore } from './search-core.js';
import { answerPlan, type AnswerPlan, type TextPlan } from './text-filter-plan.js';

const facetable = ['tags', 'categories', 'primary_table', 'lang_code', 'visibility', 'file_type', 'cluster'];

/**
 * Distinct facets one search counts. The contract bounds the list more tightly; this keeps the engine's cost
 * (facets × matching documents) bounded whoever calls it: 100,000 facets took 20 s of blocked event loop.
 */
export const maxFacets = 64;
/** Matching documents tallied per turn of the event loop. */
const hitsPerSlice = 2000;
/** Documents a faceted search without a query lists at most (newest first). */
const listedAtMost = 100_000;
/** Values of a facet an answer lists (most frequent first). */
export const valuesShown = 50;
/**
 * Values of a facet a shard's share answers at most, for the asking node to sum: past it the sums are of the most
 * frequent values each shard saw, and the answer says so (a note).
 */
export const sharedValuesAtMost = 5000;

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
 * A document's distinct facet values of a field: each element of a list, or the value; null and missing give none
 * (a null element of a list too, as a field index holds none for it, so both ways count alike).
 */
function documentValues(doc: LoadedDocument, facet: string): Iterable<string> {
  const value = fieldValue(doc, facet);
  if (Array.isArray(value)) return new Set(value.filter((v) => v !== null && v !== undefined).map(facetValue));
  return value === undefined || value === null ? [] : [facetValue(value)];
}

/**
 * The matching documents: BM25's hits for a query (filters on indexed fields as the allowed set, see text-hits.ts);
 * without one, the readable documents the filters let through, newest first (at most 100,000) — those of the
 * field indexes' set when they answer the filters, else every readable document's fields checked.
 */
function matching(
  core: SearchCore,
  scope: Scope,
  query: string | undefined,
  stats: GivenStats | undefined,
): { hits: Hit[]; plan: TextPlan } {
  const match = query ? textMatch(query, 'match') : undefined;
  if (match) {
    let plan: TextPlan = { filter: scope.filters ? 'per-candidate' : 'none', path: 'text' };
    const hits = core.textHits(scope, match, {
      onPlan: (p) => {
        plan = p;
      },
      ...(stats && { stats }),
    });
    return { hits, plan };
  }
  if (query && query.trim() !== '')
    return { hits: [], plan: { filter: scope.filters ? 'per-candidate' : 'none', path: 'text' } };
  const allowed = core.indexedDocs(scope);
  if (allowed) {
    const unfiltered = { ...scope, filters: undefined };
    const docs = [...core.load(unfiltered, [...allowed]).values()]
      .filter((doc) => core.accept(doc, unfiltered).ok)
      .sort((a, b) => b.updated_at - a.updated_at || b.seq - a.seq)
      .slice(0, listedAtMost);
    return {
      hits: docs.map((doc) => ({ doc, score: 1, chunks: [] })),
      plan: { filter: 'index', allowed: allowed.size, path: 'listed' },
    };
  }
  const hits = core
    .all(scope, listedAtMost)
    .filter((doc) => core.accept(doc, scope).ok)
    .map((doc: LoadedDocument) => ({ doc, score: 1, chunks: [] }));
  return { hits, plan: { filter: scope.filters ? 'per-candidate' : 'none', path: 'listed' } };
}

/**
 * Documents matching the query (any word, BM25; every readable document when there is no query, newest first)
 * and the filters, with, for each facet, the count of matching documents per value, most frequent first (top 50
 * values). A facet on a field the collection indexes (a ready index) is counted from its postings among the
 * matches, without reading their fields; another from each document's fields. Counting yields to other requests
 * every 2,000 documents and stops when `signal` aborts.
 */
export async function facetedSearch(
  core: SearchCore,
  scope: Scope,
  query: string | undefined,
  facets: readonly string[],
  signal?: AbortSignal,
  share?: FacetShare,
): Promise<{
  hits: Hit[];
  facets: Record<string, { value: string; count: number }[]>;
  plan: AnswerPlan;
  /** With `share`: the matching documents it counted, and whether a facet had more values than it answered. */
  counted?: { hits: number; truncated: boolean };
}> {
  const names = facetsOf(facets);
  const { hits, plan } = matching(core, scope, query, share?.stats);
  const tallies = names.map(() => new Map<string, number>());
  const counted: Record<string, 'index' | 'documents'> = {};
  const kept = share ? hits.filter((h) => share.keep(h.doc)) : hits;
  for (let start = 0; start < kept.length; start += hitsPerSlice) {
    if (start > 0) await nextTurn(signal);
    const slice = kept.slice(start, start + hitsPerSlice);
    names.forEach((facet, f) => {
      const tally = tallies[f]!;
      const indexed =
        counted[facet] !== 'documents' &&
        core.indexedKeys(
          scope,
          facet,
          slice.map((h) => h.doc.seq),
        );
      counted[facet] = indexed ? 'index' : 'documents';
      for (const hit of slice) {
        const values = indexed ? (indexed.get(hit.doc.seq) ?? []) : documentValues(hit.doc, facet);
        for (const v of values) tally.set(v, (tally.get(v) ?? 0) + 1);
      }
    });
  }
  const counts: Record<string, { value: string; count: number }[]> = {};
  const shown = share ? sharedValuesAtMost : valuesShown;
  let truncated = false;
  names.forEach((facet, f) => {
    counts[facet] = sortedCounts([...tallies[f]!].map(([value, count]) => ({ value, count }))).slice(0, shown);
    truncated ||= tallies[f]!.size > shown;
    counted[facet] ??= core.indexedKeys(scope, facet, []) ? 'index' : 'documents';
  });
  return {
    hits,
    facets: counts,
    plan: answerPlan(plan, { facets: counted }),
    ...(share && { counted: { hits: kept.length, truncated } }),
  };
}

/** A facet's values as the answer lists them: most frequent first, then by value. */
export const sortedCounts = (counts: { value: string; count: number }[]) =>
  counts.sort((a, b) => b.count - a.count || a.value.localeCompare(b.value));

/**
 * A shard's part of a partitioned collection's faceted search (service/search/partitioned-faceted.ts): the query
 * ranked with the collection's summed statistics, and the facets counted over the matching documents `keep`
 * accepts only (a document is counted by one holder), every value up to sharedValuesAtMost, for the asking node to sum.
 */
export interface FacetShare {
  readonly keep: CountedDocument;
  readonly stats?: GivenStats | undefined;
}
