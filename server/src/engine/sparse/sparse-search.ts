import type { Hit } from '../search/hit.js';
import type { Scope } from '../search/scope.js';
import type { SearchCore } from '../search/search-core.js';
import { textAllowed } from '../search/text-filter-plan.js';
import type { SparseVectorValue } from './sparse-input.js';
import type { SparsePostings } from './sparse-posting-rows.js';
import { sparseTopK } from './sparse-top-k.js';

/**
 * The exact dot-product top `limit` of a sparse query among the documents the scope lets through (decisions 0058,
 * 0070). Filters on ready field indexes give the allowed documents first (as a text search's do, text-filter-plan.ts):
 * the pruned top-k then skips every other document while it walks the postings. The top-k's documents are walked
 * best first through the rule every search uses — core.load (live, readable, in the scope's table) and core.accept
 * (the filters left) — and when fewer than `limit` pass, the top-k is asked again four times deeper, until the lists
 * hold no more documents: exact whatever the access rule or the filters drop. A document sharing no term is not a hit.
 */
export async function sparseHits(
  core: SearchCore,
  postings: SparsePostings,
  given: Scope,
  target: { readonly collection: string; readonly name: string },
  query: SparseVectorValue,
  limit: number,
  field: string,
): Promise<Hit[]> {
  const lists = await postings.ready(given.viewer.tenantId, target.collection, target.name);
  postings.checkBudget(lists, target.name, query, field);
  if (limit <= 0) return [];
  let scope = given;
  const { allowed } = textAllowed(core, scope, Math.max(limit, 1), lists.docs);
  // The set answers the filters exactly (indexed-filters.ts): only the access rule is left to check.
  if (allowed) scope = { ...scope, filters: undefined };
  const out: Hit[] = [];
  const seen = new Set<number>();
  for (let want = Math.max(limit * 2, 16); ; want *= 4) {
    const ranked = sparseTopK(lists, query, want, allowed);
    const fresh = ranked.filter((r) => !seen.has(r.seq));
    const loaded = core.load(
      scope,
      fresh.map((r) => r.seq),
    );
    for (const { seq, score } of fresh) {
      seen.add(seq);
      const doc = loaded.get(seq);
      if (!doc || !core.accept(doc, scope).ok) continue;
      out.push({ doc, score, chunks: [] });
      if (out.length === limit) return out;
    }
    // Fewer than asked: every document sharing a term was ranked.
    if (ranked.length < want) return out;
  }
}
