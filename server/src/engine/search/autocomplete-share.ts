import {
  checkCompletedField,
  completedPrefix,
  contentCandidates,
  readableDocCounts,
  sharedSuggestionsAtMost,
  valueTally,
} from './autocomplete.js';
import type { Scope } from './scope.js';
import type { SearchCore } from './search-core.js';
import { countedBy, type StatsCounting } from './text-stats.js';

/** An autocompletion as its rounds on a partitioned tenant ask it (decision 0084). */
export interface CompletionAsked {
  readonly prefix: string;
  readonly field: string;
  readonly fuzziness: number;
}

/** A node's titles or values completing the prefix: [text, documents, engagement], most documents first. */
export interface TallyShare {
  readonly tally: readonly (readonly [text: string, count: number, engagement: number])[];
  /** More than sharedSuggestionsAtMost values completed the prefix here: the rarest were left out. */
  readonly truncated: boolean;
}

/** The `tally` round: the titles or values completing the prefix in the documents this node counts. */
export function tallyShare(core: SearchCore, scope: Scope, q: CompletionAsked, counting: StatsCounting): TallyShare {
  checkCompletedField(q.field);
  const prefix = completedPrefix(q.prefix);
  if (prefix === '') return { tally: [], truncated: false };
  const tally = valueTally(core, scope, prefix, q.field, q.fuzziness, countedBy(counting));
  const entries = [...tally]
    .map(([text, t]) => [text, t.count, t.engagement] as const)
    .sort((a, b) => b[1] - a[1] || b[2] - a[2] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  return { tally: entries.slice(0, sharedSuggestionsAtMost), truncated: entries.length > sharedSuggestionsAtMost };
}

/** The `expand` round of a `content` completion: this node's vocabulary words completing the prefix. */
export function candidateShare(core: SearchCore, scope: Scope, q: CompletionAsked): { words: string[] } {
  checkCompletedField(q.field);
  const prefix = completedPrefix(q.prefix);
  if (prefix === '' || !core.text.tables(scope.viewer.tenantId)) return { words: [] };
  return { words: contentCandidates(core, scope, prefix, q.fuzziness) };
}

/** The `count` round: for each word, the readable documents holding it that this node counts. */
export function countShare(
  core: SearchCore,
  scope: Scope,
  words: readonly string[],
  counting: StatsCounting,
): { counts: number[] } {
  return { counts: readableDocCounts(core, scope, words, countedBy(counting)) };
}
