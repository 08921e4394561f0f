import type { Hit } from '../search/hit.js';
import type { Scope } from '../search/scope.js';
import type { SearchCore } from '../search/search-core.js';
import type { SparseVectorValue } from './sparse-input.js';
import type { SparsePostings } from './sparse-posting-rows.js';

/** Candidates checked against the access rule and the filters per round. */
const batch = 1000;

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
): Hit[] {
  const scores = postings.scores(scope.viewer.tenantId, target.collection, target.name, query);
  const ranked = [...scores].sort((a, b) => b[1] - a[1] || a[0] - b[0]);
  const out: Hit[] = [];
  for (let at = 0; at < ranked.length && out.length < limit; at += batch) {
    const slice = ranked.slice(at, at + batch);
    const loaded = core.load(
      scope,
      slice.map(([seq]) => seq),
    );
    for (const [seq, score] of slice) {
      const doc = loaded.get(seq);
      if (!doc || !core.accept(doc, scope).ok) continue;
      out.push({ doc, score, chunks: [] });
      if (out.length === limit) break;
    }
  }
  return out;
}
