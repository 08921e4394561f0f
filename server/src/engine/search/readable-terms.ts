import { quote } from './fts-query.js';
import type { Scope } from './scope.js';
import type { SearchCore } from './search-core.js';

/** Candidate words checked at most per expansion, so a vocabulary full of unreadable words cannot stall a query. */
export const maxTermChecks = 1_000;

/**
 * The words, among `candidates` from the tenant's vocabulary, that occur in a live document the viewer may read
 * (in the scope's table), in the order given, at most `max` of them.
 *
 * The vocabulary (FTS5's `vocab_<k>`) holds the words of every document of the tenant, private and shared ones
 * included, so anything that shows or uses a vocabulary word — wildcard and fuzzy expansions and their notes —
 * must pass its words through here: otherwise a caller could learn words of documents they cannot read. Each
 * check is one lookup in the words index that stops at the first readable chunk.
 *
 * @example readableTerms(core, scope, ['boundary', 'secretword'], 50) // ['boundary'] for a caller who cannot read the other
 */
export function readableTerms(
  core: SearchCore,
  scope: Scope,
  candidates: Iterable<string>,
  max: number,
  maxChecks = maxTermChecks,
): string[] {
  const tables = core.text.tables(scope.viewer.tenantId);
  if (!tables || max <= 0) return [];
  const occurs = core.fts.readableWordCheck(tables, scope);
  const out: string[] = [];
  let checks = 0;
  for (const term of candidates) {
    if (out.length >= max || checks >= maxChecks) break;
    checks += 1;
    if (occurs(quote(term))) out.push(term);
  }
  return out;
}

/**
 * Words ordered by how many public chunks hold their stem, most first, then alphabetically: the order of
 * expansions and suggestions, which must not count chunks the caller may not read.
 */
export function byPublicFrequency(core: SearchCore, tenantId: string, words: readonly string[]): string[] {
  const frequency = core.text.publicFrequencies(tenantId, words);
  return [...words].sort((a, b) => frequency.get(b)! - frequency.get(a)! || (a < b ? -1 : a > b ? 1 : 0));
}
