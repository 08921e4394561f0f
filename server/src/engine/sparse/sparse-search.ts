import type { Hit } from '../search/hit.js';
import type { Scope } from '../search/scope.js';
import type { SearchCore } from '../search/search-core.js';
import type { SparseVectorValue } from './sparse-input.js';
import type { SparsePostings } from './sparse-posting-rows.js';

/** Candidates checked against the access rule and the filters per round, at least. */
const batch = 256;

/**
 * The best `want` of the scored documents, best first (ties by seq): the threshold is read off a numeric sort of the
 * scores alone (a typed array, far cheaper than sorting pairs), then only the documents at or above it are sorted.
 */
function best(scores: Map<number, number>, want: number): [number, number][] {
  if (want >= scores.size) return [...scores].sort((a, b) => b[1] - a[1] || a[0] - b[0]);
  const sorted = Float64Array.from(scores.values()).sort();
  const threshold = sorted[sorted.length - want]!;
  const out: [number, number][] = [];
  for (const entry of scores) if (entry[1] >= threshold) out.push(entry);
  return out.sort((a, b) => b[1] - a[1] || a[0] - b[0]);
}

/**
 * The exact dot-product top `limit` of a sparse query among the documents the scope lets through (decision 0058):
 * every document sharing a term with the query is scored from the postings, then walked best first through the same
 * rule every search uses — core.load (live, readable, in the scope's table) and core.accept (the filters) — until
 * `limit` are found. Scoring every touched document is what makes it exact; a document sharing no term is not a hit.
 */
export function sparseHits(
  core: SearchCore,
  postings: SparsePostings,
  scope: Scope,
  target: { readonly collection: string; readonly name: string },
  query: SparseVectorValue,
  limit: number,
  field: string,
): Hit[] {
  const scores = postings.scores(scope.viewer.tenantId, target.collection, target.name, query, field);
  const out: Hit[] = [];
  // Rounds of growing size: most queries are answered from the first, a narrow filter or access rule reads further.
  let want = Math.max(batch, limit * 2);
  let ranked = best(scores, want);
  for (let at = 0; at < ranked.length && out.length < limit;) {
    const slice = ranked.slice(at, at + Math.max(batch, limit * 2));
    at += slice.length;
    const loaded = core.load(
      scope,
      slice.map(([seq]) => seq),
    );
    for (const [seq, score] of slice) {
      const doc = loaded.get(seq);
      if (!doc || !core.accept(doc, scope).ok) continue;
      out.push({ doc, score, chunks: [] });
      if (out.length === limit) return out;
    }
    if (at >= ranked.length && ranked.length < scores.size) {
      want *= 4;
      ranked = best(scores, want);
    }
  }
  return out;
}
