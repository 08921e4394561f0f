import { givenDf } from '../../engine/text/bm25-score.js';
import { chooseExpansions, type Candidate, type FuzzyExpansions } from '../../engine/search/fuzzy-search.js';
import { stem } from '../../engine/text/tokenize.js';
import { partsOf, type TenantRequest } from './partitioned-request.js';
import { summedStats } from './partitioned-text.js';

/**
 * A fuzzy search of a partitioned collection, or of the whole tenant holding some (issue #41, decisions 0083, 0087), in three rounds so that the expansions,
 * their order and the scores are those of one node holding everything:
 * 1. `expand`: one live replica of each shard answers each token's candidates in its vocabulary (with their edit
 *    distance) and which of them occur in a document it holds that the caller may read; the union over the nodes
 *    is the whole collection's (and the tenant's other text, which every node holds).
 * 2. the dfs round over the readable candidates: the public chunks holding each one's stem, summed over every
 *    shard, order the candidates as one node's index does, and the asking node chooses each token's expansions;
 * 3. every node ranks those expansions with the summed statistics, and the shards' top-k merge exactly.
 *
 * @example const { answers, missing, notes } = await partitionedFuzzy(request);
 */
export async function partitionedFuzzy(
  request: TenantRequest,
): Promise<{ answers: readonly unknown[]; missing: readonly number[]; notes: readonly string[] }> {
  // Of the whole tenant (table null), each round asks every partitioned collection's shards and this node's part.
  const first = await partsOf(request, 'search-fuzzy', { phase: 'expand' });
  const parts = first.answers as FuzzyExpansions[];
  const tokens = parts[0]?.tokens ?? [];
  const candidates = new Map<string, Candidate[]>();
  for (const token of tokens) {
    const byTerm = new Map<string, Candidate>();
    for (const part of parts) for (const found of part.candidates[token] ?? []) byTerm.set(found.term, found);
    candidates.set(token, [...byTerm.values()]);
  }
  const readable = new Set(parts.flatMap((part) => part.readable));
  const words = [...readable].sort();
  const counted =
    words.length > 0 ? await summedStats(request, 'search-fuzzy', words) : { stats: null, missing: [], notes: [] };
  const df = counted.stats?.df ?? {};
  const chosen = chooseExpansions(
    tokens,
    candidates,
    (term) => givenDf({ df }, stem(term, 'en')),
    (terms, max) => terms.filter((term) => readable.has(term)).slice(0, max),
  );
  const notes = [...(parts[0]?.notes ?? []), ...chosen.notes];
  const stats = counted.stats ?? { chunks: 0, tokens: 0, df: {} };
  const last = await partsOf(request, 'search-fuzzy', { stats, words: chosen.words, notes });
  return {
    answers: last.answers,
    missing: [...new Set([...first.missing, ...counted.missing, ...last.missing])].sort((a, b) => a - b),
    notes: counted.notes,
  };
}
