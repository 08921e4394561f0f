import { createError } from '@godb/contract';
import { queryTokens, quote } from './fts-query.js';
import { boundedLevenshtein } from './levenshtein.js';
import { byPublicFrequency, readableTerms } from './readable-terms.js';
import type { CountedDocument, Scope } from './scope.js';
import type { SearchCore } from './search-core.js';

export interface Suggestion {
  readonly text: string;
  readonly score: number;
  readonly count: number;
}

const fields = ['title', 'content', 'tags', 'categories'];

/** Whether `word` completes `prefix` within `fuzziness` edits (on the prefix-length part of the word). */
function completes(word: string, prefix: string, fuzziness: number): boolean {
  if (word.startsWith(prefix)) return true;
  if (fuzziness === 0) return false;
  for (let cut = Math.max(1, prefix.length - fuzziness); cut <= prefix.length + fuzziness; cut += 1) {
    if (boundedLevenshtein(prefix, word.slice(0, cut), fuzziness) <= fuzziness) return true;
  }
  return false;
}

const engagementOf = (fields: string) => {
  const e = (JSON.parse(fields) as { engagement?: Record<string, number> }).engagement ?? {};
  return (e.clicks ?? 0) + (e.likes ?? 0) + (e.views ?? 0) + (e.shares ?? 0) + (e.bookmarks ?? 0);
};

/** How many of a field's values (titles, tags, categories) a node's share of a completion carries at most. */
export const sharedSuggestionsAtMost = 5_000;

/** What a completion counted: for each suggestion, the documents carrying it and their summed engagement. */
export type Tally = Map<string, { count: number; engagement: number }>;

const everyDocument: CountedDocument = () => true;

/** Refuses a field completions are not offered for (400 naming it). */
export function checkCompletedField(field: string): void {
  if (!fields.includes(field)) {
    throw createError(
      'VALIDATION_FAILED',
      { detail: `body.field must be one of: ${fields.join(', ')}` },
      { field: 'body.field' },
    );
  }
}

/** The prefix as completions compare it. */
export const completedPrefix = (prefixText: string): string => prefixText.toLowerCase().trim();

/**
 * The titles (`title`) or values (`tags`, `categories`) completing `prefix` in the live documents the viewer may
 * read that `counted` accepts, each with the documents carrying it and their engagement.
 */
export function valueTally(
  core: SearchCore,
  scope: Scope,
  prefix: string,
  field: string,
  fuzziness: number,
  counted: CountedDocument = everyDocument,
): Tally {
  const tally: Tally = new Map();
  const add = (text: string, engagement: number) => {
    const t = tally.get(text) ?? { count: 0, engagement: 0 };
    t.count += 1;
    t.engagement += engagement;
    tally.set(text, t);
  };
  for (const row of core.rows.readableTitlesAndFields(scope)) {
    if (!counted({ id: row.id, primary_table: row.table })) continue;
    if (field === 'title') {
      if (
        row.title &&
        queryTokens(row.title).some(
          (w, i, all) => completes(all.slice(i).join(' '), prefix, fuzziness) || completes(w, prefix, fuzziness),
        )
      ) {
        add(row.title, engagementOf(row.fields));
      }
    } else {
      const values = (JSON.parse(row.fields) as Record<string, unknown>)[field];
      if (!Array.isArray(values)) continue;
      for (const value of new Set(values.map(String)))
        if (completes(value.toLowerCase(), prefix, fuzziness)) add(value, engagementOf(row.fields));
    }
  }
  return tally;
}

/**
 * The vocabulary words completing the prefix's last word, most public chunks first (of the first 20,000 words
 * sharing its head): the candidates of a `content` completion, not yet checked to be readable by the caller.
 */
export function contentCandidates(core: SearchCore, scope: Scope, prefix: string, fuzziness: number): string[] {
  const last = lastWord(prefix);
  // With fuzziness, only the first letter is taken as typed: a missing or swapped letter anywhere after it
  // (`grph` → graph) is the typo being forgiven, so the range scanned must not include it.
  const head = fuzziness === 0 ? last : last.slice(0, 1);
  // Candidates in an order nothing the caller may not read can change: the most public chunks first.
  const words = byPublicFrequency(
    core,
    scope.viewer.tenantId,
    core.text.vocabulary(scope.viewer.tenantId, { prefix: head }),
  ).slice(0, 20_000);
  return words.filter((w) => completes(w, last, fuzziness));
}

const lastWord = (prefix: string) => queryTokens(prefix).at(-1) ?? prefix;

/**
 * For each word, the live documents the viewer may read that hold it and `counted` accepts. Counted in the
 * unstemmed words index the vocabulary comes from: the stemmed index would count a private word (`merging`) as
 * readable whenever a readable word shares its stem (`merge`).
 */
export function readableDocCounts(
  core: SearchCore,
  scope: Scope,
  words: readonly string[],
  counted?: CountedDocument,
): number[] {
  const tables = core.text.tables(scope.viewer.tenantId);
  if (!tables) return words.map(() => 0);
  if (!counted) {
    const visible = core.fts.readableDocsWithWord(tables, scope);
    return words.map((word) => visible(quote(word)));
  }
  const docs = core.fts.readableDocIdsWithWord(tables, scope);
  return words.map((word) => docs(quote(word)).filter(([id, table]) => counted({ id, primary_table: table })).length);
}

/** A tally's best `limit` suggestions, ranked by usefulness: the documents carrying them, boosted by engagement. */
export function rankSuggestions(tally: Tally, limit: number): Suggestion[] {
  const ranked = [...tally].map(([text, t]) => ({
    text,
    count: t.count,
    usefulness: t.count + Math.log1p(t.engagement),
  }));
  const best = Math.max(1, ...ranked.map((r) => r.usefulness));
  return ranked
    .sort((a, b) => b.usefulness - a.usefulness || a.text.length - b.text.length || a.text.localeCompare(b.text))
    .slice(0, limit)
    .map((r) => ({ text: r.text, count: r.count, score: Math.round((r.usefulness / best) * 1000) / 1000 }));
}

/**
 * Completions of a prefix, ranked by usefulness: how many readable documents carry the suggestion, boosted by
 * their engagement. `content` suggests words (checked to occur in a document the caller may read); `title`
 * suggests whole titles; `tags` and `categories` suggest values.
 */
export function autocomplete(
  core: SearchCore,
  scope: Scope,
  prefixText: string,
  field: string,
  fuzziness: number,
  limit: number,
): Suggestion[] {
  checkCompletedField(field);
  const prefix = completedPrefix(prefixText);
  if (prefix === '') return [];
  if (field !== 'content') return rankSuggestions(valueTally(core, scope, prefix, field, fuzziness), limit);
  const tally: Tally = new Map();
  const candidates = contentCandidates(core, scope, prefix, fuzziness);
  const terms = readableTerms(core, scope, candidates, limit * 4);
  readableDocCounts(core, scope, terms).forEach((docs, i) => {
    if (docs > 0) tally.set(terms[i]!, { count: docs, engagement: 0 });
  });
  return rankSuggestions(tally, limit);
}
