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
 * What a text query asks the index: `words`, any of them, a `phrase`, the words in order, or `groups`, a word of
 * each group (a wildcard query: a pattern's expansions form a group, a plain word a group of one). All three are
 * ranked by the tenant's in-memory BM25 index, or through FTS5 with the same scores while it loads. Searches build
 * it of the caller's words; textHits analyses them into index terms (text/query-analysis.ts), which is what the
 * FTS5 expressions below are made of.
 */
export type TextMatch =
  | { readonly words: readonly string[] }
  | { readonly phrase: readonly string[] }
  | { readonly groups: readonly (readonly string[])[] };

/**
 * The match for `match` (any word) or `phrase` (the words in order; one word is the same as `match`); undefined
 * when there is no word.
 */
export function textMatch(query: string, type: 'match' | 'phrase'): TextMatch | undefined {
  const tokens = queryTokens(query);
  if (tokens.length === 0) return undefined;
  return type === 'phrase' && tokens.length > 1 ? { phrase: tokens } : { words: tokens };
}

/** The same match, of index terms, as an FTS5 MATCH expression. */
export function ftsExpression(match: TextMatch): string {
  if ('groups' in match) {
    return match.groups.map((g) => (g.length === 1 ? quote(g[0]!) : `(${g.map(quote).join(' OR ')})`)).join(' AND ');
  }
  return 'words' in match ? match.words.map(quote).join(' OR ') : quote(match.phrase.join(' '));
}

/**
 * The phrases FTS5's `bm25()` sums over for the match (of index terms), in its order, each as FTS5 phrase syntax
 * and as its terms (a term is a phrase of one; a repeated term counts each time).
 */
export function ftsPhrases(match: TextMatch): { readonly text: string; readonly terms: readonly string[] }[] {
  if ('phrase' in match) return [{ text: quote(match.phrase.join(' ')), terms: match.phrase }];
  const terms = 'groups' in match ? match.groups.flat() : match.words;
  return terms.map((t) => ({ text: quote(t), terms: [t] }));
}

/**
 * Wildcard queries: `*` (any run) and `?` (one character) within a word. Each pattern is expanded against the
 * tenant's vocabulary (at most 64 words, those most public chunks hold first) and every pattern or word must match.
 * Patterns are capped in length and expansions in number, so no pattern can stall the server.
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
  // Every pattern is checked before any is expanded: the answer to a bad one never depends on what the others match.
  if (tokens.some((t) => /[*?]/.test(t) && t.length > maxWildcardPattern)) {
    throw createError(
      'VALIDATION_FAILED',
      { detail: `body.query: a wildcard pattern may be at most ${maxWildcardPattern} characters` },
      { field: 'body.query' },
    );
  }
  const expansions: Record<string, string[]> = {};
  const groups: string[][] = [];
  for (const token of tokens) {
    if (!/[*?]/.test(token)) {
      groups.push([token]);
      continue;
    }
    if (/^[*?]+$/.test(token)) continue; // matches everything: no constraint
    const words = expand(token.replace(/\*+/g, '*'), maxExpansions);
    expansions[token] = words;
    if (words.length === 0) return { match: undefined, expansions };
    groups.push(words);
  }
  return { match: groups.length > 0 ? { groups } : undefined, expansions };
}

/**
 * The patterns a wildcard query expands (each as wildcardQuery passes it to its expansion), checked as wildcardQuery
 * checks them: what a partitioned collection's asking node expands over every shard first (decision 0093).
 */
export function wildcardPatterns(query: string): string[] {
  const patterns: string[] = [];
  // Every pattern answered by one word, so that none stops the walk early.
  wildcardQuery(query, (pattern) => {
    patterns.push(pattern);
    return [pattern];
  });
  return [...new Set(patterns)];
}
