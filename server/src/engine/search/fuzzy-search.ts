import { createError } from '@godb/contract';
import { queryTokens } from './fts-query.js';
import { boundedLevenshtein } from './levenshtein.js';
import type { Hit, Scope, SearchCore } from './search-core.js';

/** Most vocabulary words one query word may expand to. */
export const maxFuzzyExpansions = 50;

/**
 * Typo-tolerant search: each query word is replaced by the tenant's words within `fuzziness` edits (Levenshtein)
 * that share its first `prefixLength` characters, then ranked by BM25 with any expansion matching. The
 * expansions are reported.
 */
export function fuzzySearch(
  core: SearchCore,
  scope: Scope,
  query: string,
  fuzziness: number,
  prefixLength: number,
  limit?: number,
): { hits: Hit[]; notes: string[] } {
  const tokens = queryTokens(query);
  if (tokens.length === 0) throw createError('QUERY_REQUIRED', {}, { field: 'body.query' });
  const tables = core.text.tables(scope.viewer.tenantId);
  if (!tables) return { hits: [], notes: [] };
  const notes: string[] = [];
  const groups: string[] = [];
  for (const token of tokens) {
    const prefix = token.slice(0, prefixLength);
    const rows = (
      prefix === ''
        ? core.sql.get(`SELECT term, doc FROM ${tables.vocab}`).all()
        : core.sql
            .get(`SELECT term, doc FROM ${tables.vocab} WHERE term >= ? AND term < ?`)
            .all(prefix, `${prefix}\u{10ffff}`)
    ) as { term: string; doc: number }[];
    const matches = rows
      .map((r) => ({ term: r.term, doc: r.doc, distance: boundedLevenshtein(token, r.term, fuzziness) }))
      .filter((m) => m.distance <= fuzziness)
      .sort((a, b) => a.distance - b.distance || b.doc - a.doc)
      .slice(0, maxFuzzyExpansions);
    if (matches.length === 0) continue;
    notes.push(
      `${token} → ${matches.map((m) => (m.distance === 0 ? m.term : `${m.term} (${m.distance})`)).join(', ')}`,
    );
    groups.push(...matches.map((m) => m.term));
  }
  return {
    hits: groups.length > 0 ? core.textHits(scope, { words: [...new Set(groups)] }, limit ? { limit } : {}) : [],
    notes,
  };
}
