import type { Embedder } from '../embeddings/embedder.js';
import { analyseMatch, defaultQueryAnalysis } from '../text/query-analysis.js';
import { textMatch } from './fts-query.js';
import { withHighlights } from './highlights.js';
import { hybridSearch, type HybridQuery } from './hybrid-search.js';
import type { Scope } from './scope.js';
import type { SearchCore } from './search-core.js';
import { finishAnswer, type SearchAnswer } from './vector-answer.js';

/** What a hybrid answer shows beyond the engine's query: the plan and highlights when asked. */
export interface HybridShown {
  readonly explain?: boolean | undefined;
  readonly highlight?: boolean | undefined;
}

/** How a hybrid query's words were analysed (notes, the terms highlights mark); none without words. */
export function analysedWords(query: HybridQuery): ReturnType<typeof analyseMatch> | undefined {
  const match = query.text ? textMatch(query.text, 'match') : undefined;
  return match ? analyseMatch(match, query.analysis ?? defaultQueryAnalysis) : undefined;
}

/**
 * The finished answer of a hybrid search: the same code on the main thread (Searches.hybrid) and on a search worker
 * (search-pool/), so both answer the same ids and scores. The notes say how the query's words were analysed (stop
 * words, synonyms) and what a learned ranking did.
 */
export async function hybridAnswer(
  core: SearchCore,
  /** Null on a search worker (it takes only searches by a collection's own vector). */
  embedder: Embedder | null,
  scope: Scope,
  query: HybridQuery,
  shown: HybridShown,
  elapsed: () => number,
): Promise<SearchAnswer> {
  const { hits, notes, ranking, plan } = await hybridSearch(core, embedder, scope, query);
  const analysed = analysedWords(query);
  const answer = finishAnswer(core.rows, elapsed, hits, query.limit, {
    notes: [...(analysed?.notes ?? []), ...notes],
    ranking,
    ...(shown.explain && { plan }),
    only: scope.counted,
  });
  return shown.highlight && analysed ? withHighlights(answer, hits, analysed.terms) : answer;
}
