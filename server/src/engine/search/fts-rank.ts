import type { RankedChunk } from '../text/bm25-index.js';
import { scoreText } from '../text/bm25-score.js';
import { contentWeight, titleWeight } from '../text/text-index.js';
import { ftsExpression, ftsPhrases, type TextMatch } from './fts-query.js';
import type { Scope } from './scope.js';
import type { SearchCore } from './search-core.js';

/**
 * The best `cap` chunks for a match, ranked through FTS5 while the tenant's in-memory index loads: the same chunks
 * and scores as Bm25Index, but only among those the caller may read (the window the search keeps anyway).
 *
 * - Public chunks (`fts_<k>`): FTS5's own `bm25()`, whose statistics are those of that table — the public chunks,
 *   as BM25's statistics are meant to be (CorpusStats).
 * - Private and shared chunks the scope's viewer may read (`hidden_<k>`, in the scope's table): FTS5's `bm25()`
 *   over that table would use its statistics, those of documents the caller may not read, so they are scored from
 *   their text with the public statistics instead (scoreText), the newest `cap` of them at most.
 *
 * The two lists are merged by score. Whatever is not public costs its text's tokenizing here, so this path serves
 * only the seconds a tenant's index takes to load. It ranks chunks: a document split into several (which the loaded
 * index ranks as a whole, see Bm25Index) ranks by its best chunk meanwhile, as FTS5 cannot rank a document over
 * overlapping chunks.
 */
export function ftsRanked(core: SearchCore, scope: Scope, match: TextMatch, cap: number): RankedChunk[] {
  const tenantId = scope.viewer.tenantId;
  const tables = core.text.tables(tenantId);
  if (!tables) return [];
  const expression = ftsExpression(match);
  const publicRows = core.fts.rankedPublic(tables, expression, cap);
  const hiddenRows = core.fts.readableHidden(tables, scope, expression, cap);
  if (hiddenRows.length === 0) return publicRows;
  const phrases = ftsPhrases(match);
  const terms = phrases.map((p) => p.terms);
  const df = core.text.publicChunksMatching(
    tenantId,
    phrases.map((p) => p.text),
  );
  const stats = core.text.publicStats(tenantId);
  const weights = { title: titleWeight, content: contentWeight };
  const scored = hiddenRows.map((row) => ({
    chunk: row.chunk,
    doc: row.doc,
    score: scoreText(row.title, row.content, terms, df, stats, weights),
  }));
  // Ties in chunk order, as the in-memory index breaks them.
  return [...publicRows, ...scored].sort((x, y) => y.score - x.score || x.chunk - y.chunk).slice(0, cap);
}
