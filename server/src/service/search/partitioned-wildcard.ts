import { givenDf } from '../../engine/text/bm25-score.js';
import { maxExpansions, wildcardPatterns } from '../../engine/search/fts-query.js';
import { maxTermChecks } from '../../engine/search/readable-terms.js';
import { wildcardExpansion, type WildcardExpansion } from '../../engine/search/text-search.js';
import { stem } from '../../engine/text/tokenize.js';
import { byId, partsOf, type TenantRequest } from './partitioned-request.js';
import { summedStats } from './partitioned-text.js';

/** What the ranking rounds of a partitioned wildcard search give each part (PartitionRun.given). */
export type WildcardGiven = WildcardExpansion;

/**
 * A wildcard text search of a partitioned collection, or of the whole tenant holding some (issue #41, decision
 * 0093), in the steps one node takes to expand it, each over every part (partsOf), so that the expansions, their
 * order and the scores are one node's holding everything:
 * 1. `expand`: each pattern's words in each part's vocabulary; their union is the tenant's;
 * 2. the dfs round over those words: the public chunks holding each one's stem, summed, order them (most first,
 *    then alphabetically) as one node's index does; the first 1,000 of each pattern are candidates;
 * 3. `readable`: which candidates a document the caller may read holds, on any part; each pattern keeps its first
 *    64 readable words, and the query's groups and notes are one node's;
 * 4. the dfs round over the groups (analysed as the query is), then every part ranks the groups with the sums.
 *
 * @example const { answers, missing, notes } = await partitionedWildcard(request);
 */
export async function partitionedWildcard(
  request: TenantRequest,
): Promise<{ answers: readonly unknown[]; missing: readonly number[]; notes: readonly string[] }> {
  const query = (request.body as { query: string }).query;
  // The query's checks here first: a bad pattern is one node's 400, whatever shard is missing.
  wildcardPatterns(query);
  const op = 'search-text';
  const first = await partsOf(request, op, { phase: 'expand' });
  const vocabulary = new Map<string, Set<string>>();
  for (const part of first.answers as { patterns: Record<string, string[]> }[])
    for (const [pattern, words] of Object.entries(part.patterns)) {
      const known = vocabulary.get(pattern) ?? new Set<string>();
      for (const word of words) known.add(word);
      vocabulary.set(pattern, known);
    }
  const words = [...new Set([...vocabulary.values()].flatMap((set) => [...set]))].sort(byId);
  const frequency = words.length > 0 ? await summedStats(request, op, words) : undefined;
  const often = (word: string) => (frequency ? givenDf(frequency.stats, stem(word, 'en')) : 0);
  const candidates = new Map(
    [...vocabulary].map(([pattern, set]) => [
      pattern,
      [...set].sort((a, b) => often(b) - often(a) || byId(a, b)).slice(0, maxTermChecks),
    ]),
  );
  const checked = [...new Set([...candidates.values()].flat())].sort(byId);
  const third = checked.length > 0 ? await partsOf(request, op, { phase: 'readable', words: checked }) : undefined;
  const readable = new Set(((third?.answers ?? []) as { readable: string[] }[]).flatMap((part) => part.readable));
  const expanded = wildcardExpansion(query, (pattern, max) =>
    (candidates.get(pattern) ?? []).filter((word) => readable.has(word)).slice(0, Math.min(max, maxExpansions)),
  );
  const missing = (...rounds: ({ missing: readonly number[] } | undefined)[]) =>
    [...new Set(rounds.flatMap((r) => r?.missing ?? []))].sort((a, b) => a - b);
  // A pattern no readable word matches: each part answers no hits as one node would (notes, plan), unranked.
  const given: WildcardGiven = { groups: expanded.match?.groups ?? [], notes: expanded.notes };
  const ranking = expanded.match
    ? await summedStats(request, op, undefined, { given })
    : { stats: { chunks: 0, tokens: 0, df: {} }, missing: [], notes: [] };
  const last = await partsOf(request, op, { stats: ranking.stats, given });
  return {
    answers: last.answers,
    missing: missing(first, frequency, third, ranking, last),
    notes: [...new Set([...(frequency?.notes ?? []), ...ranking.notes])],
  };
}
