import { createError } from '@godb/contract';

/** Word tokens, as the index sees them: letters and digits (wildcards kept for wildcard queries). */
export function queryTokens(query: string, keepWildcards = false): string[] {
  const pattern = keepWildcards ? /[\p{L}\p{N}*?]+/gu : /[\p{L}\p{N}]+/gu;
  return (query.toLowerCase().match(pattern) ?? []).filter((t) => /[\p{L}\p{N}]/u.test(t) || keepWildcards);
}

/** A token quoted for FTS5, so no user text is ever read as query syntax. */
export const quote = (token: string) => `"${token.replace(/"/g, '""')}"`;

export const maxWildcardPattern = 64;
export const maxExpansions = 64;
/** Wildcard patterns in one query at most: each is expanded against the vocabulary and checked for access. */
export const maxWildcardPatterns = 16;

/**
 * What a text query asks the index: `words`, any of them, or a `phrase`, the words in order (both ranked by the
 * tenant's in-memory BM25 index), or an FTS5 MATCH `expression` (wildcards, which need FTS5's vocabulary).
 */
export type TextMatch =
  { readonly words: readonly string[] } | { readonly phrase: readonly string[] } | { readonly expression: string };

/**
 * The match for `match` (any word) or `phrase` (the words in order; one word is the same as `match`); undefined
 * when there is no word.
 */
export function textMatch(query: string, type: 'match' | 'phrase'): TextMatch | undefined {
  const tokens = queryTokens(query);
  if (tokens.length === 0) return undefined;
  return type === 'phrase' && tokens.length > 1 ? { phrase: tokens } : { words: tokens };
}

/** The same match as an FTS5 expression (FTS5 ranks it identically). */
export function ftsExpression(match: TextMatch): string {
  if ('expression' in match) return match.expression;
  return 'words' in match ? match.words.map(quote).join(' OR ') : quote(match.phrase.join(' '));
}

/**
 * Wildcard queries: `*` (any run) and `?` (one character) within a word. Each pattern is expanded against the
 * tenant's vocabulary (at most 64 words, most frequent first) and every pattern or word must match. Patterns are
 * capped in length and expansions in number, so no pattern can stall the server.
 */
export function wildcardQuery(
  query: string,
  expand: (globPattern: string, limit: number) => string[],
): { match: TextMatch | undefined; expansions: Record<string, string[]> } {
  const tokens = [...new Set(queryTokens(query, true))];
  if (tokens.filter((t) => /[*?]/.test(t)).length > maxWildcardPatterns) {
    throw createError(
      'VALIDATION_FAILED',
      { detail: `body.query: a wildcard query may have at most ${maxWildcardPatterns} patterns with * or ?` },
      { field: 'body.query' },
    );
  }
  const expansions: Record<string, string[]> = {};
  const groups: string[] = [];
  for (const token of tokens) {
    if (!/[*?]/.test(token)) {
      groups.push(quote(token));
      continue;
    }
    if (token.length > maxWildcardPattern) {
      throw createError(
        'VALIDATION_FAILED',
        { detail: `body.query: a wildcard pattern may be at most ${maxWildcardPattern} characters` },
        { field: 'body.query' },
      );
    }
    if (/^[*?]+$/.test(token)) continue; // matches everything: no constraint
    const words = expand(token.replace(/\*+/g, '*'), maxExpansions);
    expansions[token] = words;
    if (words.length === 0) return { match: undefined, expansions };
    groups.push(`(${words.map(quote).join(' OR ')})`);
  }
  return { match: groups.length > 0 ? { expression: groups.join(' AND ') } : undefined, expansions };
}
