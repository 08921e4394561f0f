import { createError } from '@godb/contract';
import { queryTokens, quote } from './fts-query.js';
import { boundedLevenshtein } from './levenshtein.js';
import { byPublicFrequency, readableTerms } from './readable-terms.js';
import type { Scope } from './scope.js';
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
  if (!fields.includes(field)) {
    throw createError(
      'VALIDATION_FAILED',
      { detail: `body.field must be one of: ${fields.join(', ')}` },
      { field: 'body.field' },
    );
  }
  const prefix = prefixText.toLowerCase().trim();
  if (prefix === '') return [];
  const tally = new Map<string, { count: number; engagement: number }>();
  const add = (text: string, engagement: number) => {
    const t = tally.get(text) ?? { count: 0, engagement: 0 };
    t.count += 1;
    t.engagement += engagement;
    tally.set(text, t);
  };
  if (field === 'content') {
    const tables = core.text.tables(scope.viewer.tenantId);
    if (!tables) return [];
    const last = queryTokens(prefix).at(-1) ?? prefix;
    // With fuzziness, only the first letter is taken as typed: a missing or swapped letter anywhere after it
    // (`grph` → graph) is the typo being forgiven, so the range scanned must not include it.
    const head = fuzziness === 0 ? last : last.slice(0, 1);
    // Candidates in an order nothing the caller may not read can change: the most public chunks first.
    const words = byPublicFrequency(
      core,
      scope.viewer.tenantId,
      core.text.vocabulary(scope.viewer.tenantId, { prefix: head }),
    ).slice(0, 20_000);
    // Counted in the unstemmed words index the vocabulary comes from: the stemmed index would count a private
    // word (`merging`) as readable whenever a readable word shares its stem (`merge`).
    const visible = core.fts.readableDocsWithWord(tables, scope);
    const candidates = words.filter((w) => completes(w, last, fuzziness));
    for (const term of readableTerms(core, scope, candidates, limit * 4)) {
      const docs = visible(quote(term));
      if (docs > 0) tally.set(term, { count: docs, engagement: 0 });
    }
  } else {
    const rows = core.rows.readableTitlesAndFields(scope);
    for (const row of rows) {
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
  }
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
