import { createError } from '@godb/contract';
import { textMatch, wildcardQuery } from './fts-query.js';
import { maxTermChecks, readableTerms } from './readable-terms.js';
import type { Hit, Scope, SearchCore } from './search-core.js';

export type TextQueryType = 'match' | 'phrase' | 'wildcard';

/**
 * Words of the tenant's vocabulary matching a GLOB pattern, most frequent first, that occur in documents the
 * caller may read (at most `limit`).
 */
export function expandPattern(core: SearchCore, scope: Scope, pattern: string, limit: number): string[] {
  const tables = core.text.tables(scope.viewer.tenantId);
  if (!tables) return [];
  const candidates = core.sql
    .get(`SELECT term FROM ${tables.vocab} WHERE term GLOB ? ORDER BY doc DESC, term LIMIT ?`)
    .pluck()
    .all(pattern, maxTermChecks) as string[];
  return readableTerms(core, scope, candidates, limit);
}

/**
 * Full-text search, ranked by BM25. `match`: any of the words; `phrase`: the words in order; `wildcard`: `*` and
 * `?` inside words, expanded against the tenant's vocabulary.
 */
export function textSearch(
  core: SearchCore,
  scope: Scope,
  query: string,
  type: TextQueryType,
  limit?: number,
): { hits: Hit[]; notes: string[] } {
  if (query.trim() === '') throw createError('QUERY_REQUIRED', {}, { field: 'body.query' });
  if (type === 'wildcard') {
    const { match, expansions } = wildcardQuery(query, (pattern, limit) => expandPattern(core, scope, pattern, limit));
    const notes = Object.entries(expansions).map(
      ([p, words]) =>
        `${p} → ${words.length > 0 ? words.slice(0, 10).join(', ') : 'no word'}${words.length > 10 ? ', …' : ''}`,
    );
    return { hits: match ? core.textHits(scope, match, limit ? { limit } : {}) : [], notes };
  }
  const match = textMatch(query, type);
  return { hits: match ? core.textHits(scope, match, limit ? { limit } : {}) : [], notes: [] };
}
