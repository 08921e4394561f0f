import type { Hit } from '../search/hit.js';
import type { Scope } from '../search/scope.js';
import type { SearchCore } from '../search/search-core.js';
import { documentVectors } from '../search/pipeline/vector-targets.js';
import { clientVectorSearch } from '../search/vector-search.js';
import { maxSim } from './maxsim.js';
import type { MultiVectorQuery } from './plan-multi-vector.js';

/**
 * Candidates by MaxSim through the token-level index (docs/decisions/0059): each query vector searches the
 * multi-vector's HNSW index — every document vector is a key there — for its `perVector` nearest documents under
 * the scope (access rule and filters, through the same allowed sets as every vector search); the union is scored
 * by exact MaxSim over each document's stored vectors. When `perVector` reaches the documents the scope allows,
 * the union is all of them and the answer is exhaustive MaxSim.
 */
export async function multiVectorSearch(
  core: SearchCore,
  scope: Scope,
  query: MultiVectorQuery,
  limit: number,
  perVector: number,
  signal?: AbortSignal,
): Promise<{ hits: Hit[]; gathered: number }> {
  const { space } = query;
  const found = new Map<number, Hit>();
  for (const vector of query.vectors) {
    signal?.throwIfAborted();
    const { hits } = await clientVectorSearch(core, scope, space, {
      vector: Array.from(vector),
      method: space.settings.distance,
      threshold: -1,
      calibrated: false,
      limit: perVector,
      signal,
    });
    for (const hit of hits) if (!found.has(hit.doc.seq)) found.set(hit.doc.seq, hit);
  }
  const scored = maxSimScores(core, scope.viewer.tenantId, query, [...found.values()]);
  return { hits: scored.slice(0, limit), gathered: found.size };
}

/**
 * Hits scored by exact MaxSim against the query, best first; a hit without vectors of that name is left out. The
 * hits were found under the caller's access rule, so only their vectors are read.
 */
export function maxSimScores(core: SearchCore, tenantId: string, query: MultiVectorQuery, hits: readonly Hit[]): Hit[] {
  const method = query.space.settings.distance;
  const vectors = documentVectors(
    core,
    tenantId,
    { kind: 'own', space: query.space },
    hits.map((h) => h.doc),
    '',
  );
  const scored: Hit[] = [];
  for (const hit of hits) {
    const own = vectors.get(hit.doc.seq);
    if (own && own.length > 0) scored.push({ ...hit, score: maxSim(method, query.vectors, own) });
  }
  return scored.sort((a, b) => b.score - a.score);
}
