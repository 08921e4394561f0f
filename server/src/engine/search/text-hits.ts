import { createError } from '@godb/contract';
import type { RankedChunk } from '../text/bm25-index.js';
import type { GivenStats } from '../text/bm25-score.js';
import { analyseMatch, defaultQueryAnalysis, type QueryAnalysis } from '../text/query-analysis.js';
import type { TextMatch } from './fts-query.js';
import { ftsRanked } from './fts-rank.js';
import type { Hit, LoadedDocument } from './hit.js';
import { scopeReadsRows, type Scope } from './scope.js';
import type { SearchCore } from './search-core.js';
import { selectiveMatch } from './selective-terms.js';
import { textAllowed, type TextPlan } from './text-filter-plan.js';

/** Readable chunks a text search reads at most; total_hits is exact up to this many matching chunks. */
export const maxTextCandidates = 10_000;
/** Chunks read at most to find those readable chunks, unreadable ones included. */
const maxTextDepth = 5 * maxTextCandidates;

/**
 * Full-text hits ranked by BM25 (title weighted twice the content), grouped by document: a document split into
 * several chunks is scored as a whole by the in-memory index (Bm25Index: overlap counted once), one of a single
 * chunk by that chunk, and by its best chunk while the index loads (FTS5); its chunks are those that matched, best
 * first. Ranked by the tenant's in-memory index, or
 * through FTS5 with the same scores while it loads (fts-rank.ts).
 *
 * Only a window of the best chunks is read: with a `limit`, the best 20 × limit chunks (at least 200) the caller
 * may read, widened while filters or the scope's table leave too few; without one (facets, joins), 10,000. Chunks
 * the caller may not read are passed over, not counted in the window (up to 50,000 chunks are read to fill it),
 * so neither the results nor `total_hits` depend on documents the caller cannot read.
 *
 * Filters on a collection's ready field indexes (not broad, see text-filter-plan.ts) give the documents BM25 may
 * rank: the in-memory index passes over every other document's chunks as it reads the postings, and the window
 * holds allowed chunks only, so no candidate's row is read for the filters. `onPlan` is told which way was taken.
 */
export function textHits(
  core: SearchCore,
  given: Scope,
  asked: TextMatch,
  options: {
    limit?: number;
    maxTerms?: number;
    analysis?: QueryAnalysis;
    onPlan?: (plan: TextPlan) => void;
    /** Ranks with these statistics (a partitioned collection's, summed over its shards) rather than the index's. */
    stats?: GivenStats;
    /** Index terms with weights, ranked instead of `asked` (RM3 feedback's second pass, feedback-hits.ts). */
    weights?: ReadonlyMap<string, number>;
  } = {},
): Hit[] {
  let scope = given;
  const tenantId = scope.viewer.tenantId;
  if (!core.text.tables(tenantId)) {
    options.onPlan?.({ filter: scope.filters ? 'per-candidate' : 'none', path: 'text' });
    return [];
  }
  // The caller's words as index terms, in the query's language, with the collection's stop words and synonyms.
  const weights = options.weights;
  const terms = weights
    ? { words: [...weights.keys()] }
    : analyseMatch(asked, options.analysis ?? defaultQueryAnalysis).match;
  const match = weights ? terms : selectiveMatch(core, tenantId, terms, options.maxTerms);
  const ranked = core.text.ranked(tenantId);
  let want = options.limit ? Math.min(maxTextCandidates, Math.max(options.limit * 20, 200)) : maxTextCandidates;
  // While the in-memory index loads (FTS5), filters are checked on the candidates as before.
  const planned = ranked ? textAllowed(core, scope, want, ranked.size) : undefined;
  options.onPlan?.(planned?.plan ?? { filter: scope.filters ? 'per-candidate' : 'none', path: 'text' });
  const allowed = planned?.allowed;
  // The set answers the filters exactly (indexed-filters.ts): only the access rule and geo are left to check.
  if (allowed) scope = { ...scope, filters: undefined };
  let read: (cap: number) => readonly RankedChunk[];
  const givenStats = options.stats;
  if (givenStats && !ranked) {
    // FTS5 ranks with its own tables' statistics.
    throw createError('NOT_IMPLEMENTED', {
      operation: 'text search with given statistics while the index loads',
      issue: 41,
    });
  }
  if (ranked && weights) {
    read = (cap) => ranked.weighted(weights, cap, allowed, givenStats);
  } else if (ranked && 'words' in match) {
    read = (cap) => ranked.search(match.words, cap, allowed, givenStats);
  } else if (ranked && 'phrase' in match) {
    read = (cap) => ranked.phrase(match.phrase, cap, allowed, givenStats);
  } else if (ranked && 'groups' in match) {
    read = (cap) => ranked.groups(match.groups, cap, allowed, givenStats);
  } else {
    // Every table: the window counts other tables' chunks the caller may read (see #check).
    const everyTable = { ...scope, table: undefined };
    read = (cap) => ftsRanked(core, everyTable, match, cap);
  }
  // Candidates are only ranked and counted unless filters or a geo restriction must look at them, or every hit
  // is wanted (facets): then their rows are read with them, else only the results' rows are read.
  const lazy = options.limit !== undefined && !scopeReadsRows(scope);
  let depth = want;
  // What earlier rounds learnt about the candidates' documents: loaded (readable in scope), readable in any table.
  const docs = new Map<number, LoadedDocument>();
  const readable = new Set<number>();
  const checked = new Set<number>();
  for (;;) {
    const rows = read(depth);
    check(core, scope, rows, lazy, { docs, readable, checked });
    const window: RankedChunk[] = [];
    for (const row of rows) {
      if (window.length === want) break;
      if (readable.has(row.doc)) window.push(row);
    }
    if (window.length < want && rows.length === depth && depth < maxTextDepth) {
      // Deeper, in proportion to the share of readable chunks so far (at least 1.5 times, at most 5 times).
      const needed = (want * rows.length) / Math.max(1, window.length);
      depth = Math.min(maxTextDepth, Math.ceil(Math.min(depth * 5, Math.max(depth * 1.5, needed * 1.1))));
      continue;
    }
    const hits = core.group(scope, window, docs);
    if (!options.limit || hits.length >= options.limit || rows.length < depth || want >= maxTextCandidates) return hits;
    want = Math.min(maxTextCandidates, want * 5);
    depth = Math.max(depth, want);
  }
}

/**
 * Loads the rows' documents not checked yet: into `docs` those readable in the scope, into `readable` those
 * readable in any table (when the scope names a table, the window counts other tables' documents the caller may
 * read, as it counts those that filters reject).
 */
function check(
  core: SearchCore,
  scope: Scope,
  rows: readonly RankedChunk[],
  lazy: boolean,
  known: { docs: Map<number, LoadedDocument>; readable: Set<number>; checked: Set<number> },
): void {
  const fresh = [...new Set(rows.flatMap((r) => (known.checked.has(r.doc) ? [] : [r.doc])))];
  if (fresh.length === 0) return;
  for (const seq of fresh) known.checked.add(seq);
  const loaded = core.load(scope, fresh, { lazy });
  for (const [seq, doc] of loaded) {
    known.docs.set(seq, doc);
    known.readable.add(seq);
  }
  if (scope.table === undefined) return;
  const others = fresh.filter((seq) => !loaded.has(seq));
  for (const seq of core.load({ ...scope, table: undefined }, others, { lazy: true }).keys()) known.readable.add(seq);
}
