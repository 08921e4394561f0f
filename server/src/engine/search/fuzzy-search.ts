import { createError, inputLimits } from '@godb/contract';
import { queryTokens } from './fts-query.js';
import { boundedLevenshtein } from './levenshtein.js';
import { readableTerms } from './readable-terms.js';
import type { Hit } from './hit.js';
import type { GivenStats } from '../text/bm25-score.js';
import type { Scope } from './scope.js';
import type { SearchCore } from './search-core.js';

/** Most vocabulary words one query word may expand to. */
export const maxFuzzyExpansions = 50;

/** Distinct query words expanded at most; later words are reported as not expanded. */
export const maxFuzzyWords = inputLimits.fuzzyWords;

/** A vocabulary word within the fuzziness of a query token, and its edit distance. */
export interface Candidate {
  readonly term: string;
  readonly distance: number;
}

/**
 * A node's answer to the first round of a partitioned collection's fuzzy search: the tokens expanded, each one's
 * candidates in the node's vocabulary, and the candidates that occur in a document there the caller may read.
 */
export interface FuzzyExpansions {
  readonly tokens: readonly string[];
  readonly notes: readonly string[];
  readonly candidates: Readonly<Record<string, readonly Candidate[]>>;
  readonly readable: readonly string[];
}

/** The words of a fuzzy query that are expanded, and a note when some are not (more than maxFuzzyWords). */
export function fuzzyTokens(query: string): { tokens: string[]; notes: string[] } {
  const all = [...new Set(queryTokens(query))];
  if (all.length === 0) throw createError('QUERY_REQUIRED', {}, { field: 'body.query' });
  const tokens = all.slice(0, maxFuzzyWords);
  const notes =
    all.length > tokens.length
      ? [`only the first ${maxFuzzyWords} distinct words are expanded (${all.length - tokens.length} ignored)`]
      : [];
  return { tokens, notes };
}

/**
 * Each token's expansions: its candidates nearest first, then those the most public chunks hold (`frequency`, so
 * nothing the caller may not read orders them), then by word; of those, the first `readable` lets through, at most
 * maxFuzzyExpansions. Answers the words to rank (each once) and a note per token expanded.
 */
export function chooseExpansions(
  tokens: readonly string[],
  candidates: ReadonlyMap<string, readonly Candidate[]>,
  frequency: (term: string) => number,
  readable: (terms: readonly string[], max: number) => string[],
): { words: string[]; notes: string[] } {
  const groups: string[] = [];
  const notes: string[] = [];
  for (const token of tokens) {
    const found = [...(candidates.get(token) ?? [])].sort(
      (a, b) =>
        a.distance - b.distance ||
        frequency(b.term) - frequency(a.term) ||
        (a.term < b.term ? -1 : a.term > b.term ? 1 : 0),
    );
    const distanceOf = new Map(found.map((m) => [m.term, m.distance]));
    const words = readable(
      found.map((m) => m.term),
      maxFuzzyExpansions,
    );
    if (words.length === 0) continue;
    notes.push(
      `${token} → ${words.map((w) => (distanceOf.get(w) === 0 ? w : `${w} (${distanceOf.get(w)})`)).join(', ')}`,
    );
    groups.push(...words);
  }
  return { words: [...new Set(groups)], notes };
}

/** The text hits of a fuzzy query's expansions (ranked with `stats` when given: a partitioned collection's). */
export function fuzzyHits(
  core: SearchCore,
  scope: Scope,
  words: readonly string[],
  limit?: number,
  stats?: GivenStats,
): Hit[] {
  if (words.length === 0) return [];
  // Its expansions are already bounded (words × expansions), and each one asked for must count.
  return core.textHits(
    scope,
    { words: [...words] },
    { maxTerms: maxFuzzyWords * maxFuzzyExpansions, ...(limit && { limit }), ...(stats && { stats }) },
  );
}

/**
 * Typo-tolerant search: each query word is replaced by the tenant's words within `fuzziness` edits (Levenshtein)
 * that share its first `prefixLength` characters, nearest first, then those the most public chunks hold (so nothing
 * the caller may not read orders them), then ranked by BM25 with any expansion matching. The expansions are
 * reported. Only words that occur in documents the caller may read are used or reported.
 *
 * Cost is bounded: at most `maxFuzzyWords` distinct words are expanded, the vocabulary is read once per query
 * (or once per distinct prefix), and only words whose length is within `fuzziness` are compared.
 */
export function fuzzySearch(
  core: SearchCore,
  scope: Scope,
  query: string,
  fuzziness: number,
  prefixLength: number,
  limit?: number,
): { hits: Hit[]; notes: string[] } {
  const { tokens, notes } = fuzzyTokens(query);
  if (!core.text.tables(scope.viewer.tenantId)) return { hits: [], notes: [] };
  const candidates = fuzzyCandidates(core, scope.viewer.tenantId, tokens, fuzziness, prefixLength);
  const frequency = core.text.publicFrequencies(
    scope.viewer.tenantId,
    [...candidates.values()].flatMap((found) => found.map((m) => m.term)),
  );
  const chosen = chooseExpansions(
    tokens,
    candidates,
    (term) => frequency.get(term)!,
    (terms, max) => readableTerms(core, scope, terms, max),
  );
  return { hits: fuzzyHits(core, scope, chosen.words, limit), notes: [...notes, ...chosen.notes] };
}

/**
 * The vocabulary words within `fuzziness` edits of each token that share its first `prefixLength` characters. The
 * vocabulary is scanned once for the tokens without a prefix, and once per distinct prefix for the others.
 */
export function fuzzyCandidates(
  core: SearchCore,
  tenantId: string,
  tokens: readonly string[],
  fuzziness: number,
  prefixLength: number,
): Map<string, Candidate[]> {
  const byPrefix = new Map<string, string[]>();
  for (const token of tokens) {
    const prefix = token.slice(0, prefixLength);
    byPrefix.set(prefix, [...(byPrefix.get(prefix) ?? []), token]);
  }
  const out = new Map<string, Candidate[]>(tokens.map((t) => [t, []]));
  for (const [prefix, group] of byPrefix) {
    const terms = core.text.vocabulary(tenantId, { prefix });
    for (const term of terms) {
      for (const token of group) {
        if (Math.abs(term.length - token.length) > fuzziness) continue;
        const distance = boundedLevenshtein(token, term, fuzziness);
        if (distance <= fuzziness) out.get(token)!.push({ term, distance });
      }
    }
  }
  return out;
}
