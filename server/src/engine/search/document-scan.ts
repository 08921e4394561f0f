import { nextTurn } from '../next-turn.js';
import { matchesFilters } from './filters.js';
import type { LoadedDocument } from './hit.js';
import type { CountedDocument, Scope } from './scope.js';
import type { SearchCore } from './search-core.js';

/** Rows read per slice of a scan: a few milliseconds, after which other requests are served. */
const rowsPerSlice = 1000;
/** Rows one scroll request reads at most: a selective filter answers a short page with a cursor, not a long wait. */
const maxRowsPerPage = 50_000;

/**
 * Documents a filter may allow, by its field indexes' count, for a scroll page to read them all (ordered by id in
 * SQL, about a microsecond each) rather than pages of the collection: a broader filter finds a page among the
 * first rows of the collection's pages anyway, which costs the page's size over the filter's share.
 */
const indexedScrollBelow = 10_000;
/** Seqs per statement when the indexes' documents are read. */
const seqsPerRead = 10_000;

/** The documents the scope may read that match its filters, in id order after `afterId`, and the next cursor. */
export async function scrollDocuments(
  core: SearchCore,
  scope: Scope,
  afterId: string | null,
  limit: number,
  signal?: AbortSignal,
): Promise<{ documents: LoadedDocument[]; next: string | null }> {
  const indexed = core.indexedDocs(scope, indexedScrollBelow);
  if (indexed) {
    const documents = core.pageAmong(scope, [...indexed], afterId, limit + 1);
    const more = documents.length > limit;
    if (more) documents.length = limit;
    return { documents, next: more ? documents[limit - 1]!.id : null };
  }
  const documents: LoadedDocument[] = [];
  let after = afterId;
  let read = 0;
  for (;;) {
    if (read > 0) await nextTurn(signal);
    const rows = core.page(scope, after, rowsPerSlice);
    for (const doc of rows) {
      after = doc.id;
      read += 1;
      if (!scope.filters || matchesFilters(doc, scope.filters)) documents.push(doc);
      if (documents.length === limit) return { documents, next: doc.id };
    }
    if (rows.length < rowsPerSlice) return { documents, next: null };
    if (read >= maxRowsPerPage) return { documents, next: after };
  }
}

/**
 * How many documents the scope may read match its filters (in SQL when there are none); with `keep`, only those
 * whose id it accepts (a partitioned collection's shards asked of this node).
 */
export async function countDocuments(
  core: SearchCore,
  scope: Scope,
  signal?: AbortSignal,
  keep?: CountedDocument,
): Promise<number> {
  if (keep) return (await matchingDocuments(core, scope, signal)).filter(keep).length;
  if (!scope.filters) return core.countReadable(scope);
  // From the field indexes: the filter's documents, then the access rule on those alone.
  const indexed = core.indexedDocs(scope);
  if (indexed) return core.countAmong(scope, [...indexed]);
  let count = 0;
  let after: string | null = null;
  for (let first = true; ; first = false) {
    if (!first) await nextTurn(signal);
    const rows = core.page(scope, after, rowsPerSlice);
    for (const doc of rows) if (matchesFilters(doc, scope.filters)) count += 1;
    if (rows.length < rowsPerSlice) return count;
    after = rows[rows.length - 1]!.id;
  }
}

/** Every document the scope may read that matches its filters (for delete by filter), in id order. */
export async function matchingDocuments(
  core: SearchCore,
  scope: Scope,
  signal?: AbortSignal,
): Promise<LoadedDocument[]> {
  const indexed = core.indexedDocs(scope);
  if (indexed) {
    const seqs = [...indexed];
    const found: LoadedDocument[] = [];
    for (let i = 0; i < seqs.length; i += seqsPerRead) {
      if (i > 0) await nextTurn(signal);
      found.push(...core.pageAmong(scope, seqs.slice(i, i + seqsPerRead), null, seqsPerRead));
    }
    return found.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }
  const out: LoadedDocument[] = [];
  let after: string | null = null;
  for (let first = true; ; first = false) {
    if (!first) await nextTurn(signal);
    const rows = core.page(scope, after, rowsPerSlice);
    for (const doc of rows) if (!scope.filters || matchesFilters(doc, scope.filters)) out.push(doc);
    if (rows.length < rowsPerSlice) return out;
    after = rows[rows.length - 1]!.id;
  }
}
