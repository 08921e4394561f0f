import { givenDf } from '../../engine/text/bm25-score.js';
import {
  checkCompletedField,
  completedPrefix,
  rankSuggestions,
  type Suggestion,
  type Tally,
} from '../../engine/search/autocomplete.js';
import type { TallyShare } from '../../engine/search/autocomplete-share.js';
import { maxTermChecks } from '../../engine/search/readable-terms.js';
import { stem } from '../../engine/text/tokenize.js';
import type { PartitionedRound } from './partitioned-search.js';
import { byId, partsOf, type TenantRequest } from './partitioned-request.js';
import { summedStats } from './partitioned-text.js';
import { clampLimit } from './scope.js';

interface Asked {
  readonly prefix: string;
  readonly field: string;
  readonly fuzziness: number;
  readonly limit: number;
}

/**
 * An autocompletion on a tenant with partitioned collections (issue #41, decision 0084): it reads the whole tenant,
 * so one live replica of every shard of every partitioned collection answers for the documents of the shards it is
 * asked (`counted`), and this node for the rest of the tenant (which every node holds); the sums are one node's.
 * - `title`, `tags`, `categories`: one `tally` round; the documents and engagement of each value are summed.
 * - `content`: `expand` (each node's candidate words), the dfs round over their stems (the public chunks that order
 *   them, as one node's index does), then `count` rounds over the words in that order (the readable documents
 *   holding each) until `limit · 4` readable words are found or 1,000 checked, as one node checks them.
 *
 * @example const answer = await partitionedAutocomplete({ partitions, tenantId, table: null, body, principal, allowPartial: false });
 */
export async function partitionedAutocomplete(
  request: TenantRequest,
): Promise<{ suggestions: Suggestion[]; time_taken: number }> {
  const started = performance.now();
  const asked = request.body as Asked;
  checkCompletedField(asked.field);
  const limit = clampLimit(asked.limit);
  const prefix = completedPrefix(asked.prefix);
  const tally =
    prefix === '' ? new Map() : asked.field === 'content' ? await wordTally(request, limit) : await valueTally(request);
  return {
    suggestions: rankSuggestions(tally, limit),
    time_taken: Math.round((performance.now() - started) * 1000) / 1000,
  };
}

/** Every node's answers to a round, and this node's for the rest of the tenant. */
const everyPart = async (request: TenantRequest, round: PartitionedRound) =>
  (await partsOf(request, 'search-autocomplete', round)).answers;

async function valueTally(request: TenantRequest): Promise<Tally> {
  const tally: Tally = new Map();
  for (const part of (await everyPart(request, { phase: 'tally' })) as TallyShare[])
    for (const [text, count, engagement] of part.tally) {
      const t = tally.get(text) ?? { count: 0, engagement: 0 };
      tally.set(text, { count: t.count + count, engagement: t.engagement + engagement });
    }
  return tally;
}

async function wordTally(request: TenantRequest, limit: number): Promise<Tally> {
  const { partitions, tenantId, body, principal } = request;
  const expanded = await partitions.fanOut(tenantId, null, 'search-autocomplete', body, principal, false, {
    phase: 'expand',
  });
  const words = [...new Set((expanded.answers as { words: string[] }[]).flatMap((a) => a.words))].sort();
  if (words.length === 0) return new Map();
  const { stats } = await summedStats(request, 'search-autocomplete', words, { split: 'counted' });
  const chunks = (word: string) => givenDf(stats, stem(word, 'en'));
  const ordered = words.sort((a, b) => chunks(b) - chunks(a) || byId(a, b));
  const wanted = limit * 4;
  const tally: Tally = new Map();
  let checked = 0;
  while (tally.size < wanted && checked < Math.min(maxTermChecks, ordered.length)) {
    // Twice the words still wanted a round: most candidates are readable, so one round usually decides.
    const batch = ordered.slice(checked, Math.min(maxTermChecks, checked + 2 * (wanted - tally.size)));
    const parts = (await everyPart(request, { phase: 'count', words: batch })) as { counts: number[] }[];
    for (const [i, word] of batch.entries()) {
      checked += 1;
      const docs = parts.reduce((sum, part) => sum + (part.counts[i] ?? 0), 0);
      if (docs > 0) tally.set(word, { count: docs, engagement: 0 });
      if (tally.size >= wanted) break;
    }
  }
  return tally;
}
