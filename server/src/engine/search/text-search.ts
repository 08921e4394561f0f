import { createError } from '@godb/contract';
import { textMatch, wildcardQuery } from './fts-query.js';
import type { Hit, Scope, SearchCore } from './search-core.js';

export type TextQueryType = 'match' | 'phrase' | 'wildcard';

/** Words of the tenant's vocabulary matching a GLOB pattern, most frequent first. */
export function expandPattern(core: SearchCore, tenantId: string, pattern: string, limit: number): string[] {
  const tables = core.text.tables(tenantId);
  if (!tables) return [];
  return core.sql
    .get(`SELECT term FROM ${tables.vocab} WHERE term GLOB ? ORDER BY doc DESC, term LIMIT ?`)
    .pluck()
    .all(pattern, limit) as string[];
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
    const { match, expansions } = wildcardQuery(query, (pattern, limit) =>
      expandPattern(core, scope.viewer.tenantId, pattern, limit),
    );
    const notes = Object.entries(expansions).map(
      ([p, words]) =>
        `${p} → ${words.length > 0 ? words.slice(0, 10).join(', ') : 'no word'}${words.length > 10 ? ', …' : ''}`,
    );
    return { hits: match ? core.textHits(scope, match, limit ? { limit } : {}) : [], notes };
  }
  const match = textMatch(query, type);
  return { hits: match ? core.textHits(scope, match, limit ? { limit } : {}) : [], notes: [] };
}
