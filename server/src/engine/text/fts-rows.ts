import type { Db } from '../storage/database.js';
import { StatementCache } from '../storage/statement-cache.js';
import { principalsOf } from '../access/access.js';
import { alive, readableBindings, readableCandidate, readableSql, type ReadScope } from '../access/search-rows.js';
import type { RankedChunk } from './bm25-index.js';
import type { TextTables } from './text-index.js';

/** A private or shared chunk an FTS5 match found, with its text (scored by the caller from public statistics). */
export interface HiddenChunk {
  readonly chunk: number;
  readonly doc: number;
  readonly title: string;
  readonly content: string;
}

/**
 * The text store's side of searches: every SQL statement that ranking, expansions and completions run on a
 * tenant's FTS5 tables (`fts_<k>`, `hidden_<k>`, `words_<k>`, see TextTables). Reads of private and shared chunks
 * apply the access rule in SQL. Statements are prepared once per SQL text (StatementCache).
 *
 * @example const fts = new FtsRows(db); fts.rankedPublic(tables, '"graph"', 200);
 */
export class FtsRows {
  readonly #sql: StatementCache;

  constructor(db: Db) {
    this.#sql = new StatementCache(db);
  }

  /** The best `cap` public chunks for an FTS5 expression, by FTS5's own `bm25()` (score = -rank), best first. */
  rankedPublic(tables: TextTables, match: string, cap: number): RankedChunk[] {
    return this.#sql
      .get(
        `SELECT c.seq AS chunk, c.doc_seq AS doc, -m.rank AS score
       FROM (SELECT rowid, rank FROM ${tables.fts} WHERE ${tables.fts} MATCH @match ORDER BY rank LIMIT @cap) m
       JOIN chunks c ON c.seq = m.rowid ORDER BY m.rank`,
      )
      .all({ match, cap }) as RankedChunk[];
  }

  /**
   * The newest `cap` private and shared chunks matching an FTS5 expression whose documents the scope's viewer may
   * read (live, in the viewer's tenant, in the scope's table), with their text.
   */
  readableHidden(tables: TextTables, scope: ReadScope, match: string, cap: number): HiddenChunk[] {
    return this.#sql
      .get(
        `SELECT h.rowid AS chunk, c.doc_seq AS doc, h.title, h.content FROM ${tables.hidden} h
       JOIN chunks c ON c.seq = h.rowid JOIN documents d ON d.seq = c.doc_seq
       WHERE ${tables.hidden} MATCH @match AND ${readableCandidate} ORDER BY h.rowid DESC LIMIT @cap`,
      )
      .all({ ...readableBindings(scope), match, cap }) as HiddenChunk[];
  }

  /**
   * A check whether a words-index expression occurs in a live document the scope's viewer may read (in its table):
   * one lookup that stops at the first readable chunk. Made once per set of words checked.
   */
  readableWordCheck(tables: TextTables, scope: ReadScope): (match: string) => boolean {
    const occurs = this.#sql.get(
      `SELECT 1 FROM ${tables.words} JOIN chunks c ON c.seq = ${tables.words}.rowid JOIN documents d ON d.seq = c.doc_seq
     WHERE ${tables.words} MATCH @match AND ${readableCandidate} LIMIT 1`,
    );
    const bind = readableBindings(scope);
    return (match) => occurs.get({ ...bind, match }) !== undefined;
  }

  /**
   * A counter of the live documents (any table) the scope's viewer may read that hold a words-index expression.
   * Made once per set of words counted.
   */
  readableDocsWithWord(tables: TextTables, scope: ReadScope): (match: string) => number {
    const visible = this.#sql.get(
      `SELECT count(DISTINCT d.seq) AS docs FROM ${tables.words} JOIN chunks c ON c.seq = ${tables.words}.rowid
       JOIN documents d ON d.seq = c.doc_seq WHERE ${tables.words} MATCH @match AND ${alive} AND ${readableSql}`,
    );
    const bind = { tenant: scope.viewer.tenantId, principals: principalsOf(scope.viewer), now: scope.now };
    return (match) => (visible.get({ ...bind, match }) as { docs: number }).docs;
  }

  /**
   * The live documents (any table) the scope's viewer may read that hold a words-index expression, as [id, table]:
   * what a node counts of them when it counts only some (a partitioned collection's shards, see autocomplete).
   */
  readableDocIdsWithWord(tables: TextTables, scope: ReadScope): (match: string) => [id: string, table: string][] {
    const docs = this.#sql.get(
      `SELECT DISTINCT d.id, d.primary_table FROM ${tables.words} JOIN chunks c ON c.seq = ${tables.words}.rowid
       JOIN documents d ON d.seq = c.doc_seq WHERE ${tables.words} MATCH @match AND ${alive} AND ${readableSql}`,
    );
    const bind = { tenant: scope.viewer.tenantId, principals: principalsOf(scope.viewer), now: scope.now };
    return (match) => docs.raw(true).all({ ...bind, match }) as [string, string][];
  }
}
