import type { Db } from '../storage/database.js';
import { StatementCache } from '../storage/statement-cache.js';
import { principalsOf } from './access.js';
import type { Viewer } from './viewer.js';

/**
 * The access rule (`canRead` in access/access.ts, which must say the same) as SQL over a `documents` row aliased
 * `d`, for searches: bind `principals` (JSON array of the user id and group ids) and `now`.
 */
export const readableSql = `(d.visibility = 'public' OR EXISTS (
  SELECT 1 FROM document_access a
  WHERE a.doc_seq = d.seq
    AND a.principal IN (SELECT value FROM json_each(@principals))
    AND (a.expires_at IS NULL OR a.expires_at > @now)
    AND (a.role <> 'list' OR d.visibility = 'shared')))`;

/** A live document row `d`: neither deleted nor superseded by a newer version. */
export const alive = 'd.deleted_at IS NULL AND d.superseded = 0';

/**
 * The columns a search reads of every candidate, as arrays (better-sqlite3's raw mode: building row objects
 * costs more than the query itself when hundreds of candidates are read).
 */
const lightColumns =
  'd.seq, d.id, d.title, d.primary_table, d.visibility, d.created_at, d.updated_at, d.parent_doc_id, d.cluster, d.lat, d.lon, d.model';
export type LightRow = [
  seq: number,
  id: string,
  title: string,
  primaryTable: string,
  visibility: string,
  createdAt: number,
  updatedAt: number,
  parentDocId: string | null,
  cluster: number | null,
  lat: number | null,
  lon: number | null,
  model: string | null,
];
export type HeavyRow = [content: string, fields: string];
export type FullRow = [...LightRow, ...HeavyRow];
/** A stored vector (chunk or client vector) with its key and the light row of its document. */
export type VectorRow = [seq: number, vector: Buffer, ...light: LightRow];

/** Who reads, and where: the access rule's viewer and clock, and the collection (table) a search is limited to. */
export interface ReadScope {
  readonly viewer: Viewer;
  readonly now: number;
  readonly table?: string | undefined;
}

/**
 * A candidate document `d` (found by seq) that a search may return: the viewer's tenant (`+` keeps SQLite on the
 * seq lookups rather than the tenant's index), live, in the scope's table, and readable under the access rule.
 * Bind it with `readableBindings(scope)`.
 */
export const readableCandidate = `+d.tenant_id = @tenant AND ${alive} AND (@table IS NULL OR d.primary_table = @table) AND ${readableSql}`;

/** The SQL parameters of `readableCandidate` for a scope. */
export function readableBindings(scope: ReadScope): {
  tenant: string;
  table: string | null;
  principals: string;
  now: number;
} {
  return {
    tenant: scope.viewer.tenantId,
    table: scope.table ?? null,
    principals: principalsOf(scope.viewer),
    now: scope.now,
  };
}

/** A chunk's text and where it lies in its document (characters of the content). */
export interface ChunkText {
  readonly seq: number;
  readonly chunk_index: number;
  readonly content: string;
  readonly start_offset: number;
  readonly end_offset: number;
}

/**
 * The store's side of searches, recommendations and the graph's content vectors: every SQL statement they run on
 * `documents`, `chunks`, `document_vectors` and `geo_rtree`. Reads named `readable…` apply the access rule in SQL
 * (access/access.ts), so no search can return a document the caller cannot GET; the others say why they need
 * none. Statements are prepared once per SQL text (StatementCache).
 *
 * @example const rows = new SearchRows(db); rows.readableLightRows(scope, [12, 15]);
 */
export class SearchRows {
  readonly #db: Db;
  readonly #sql: StatementCache;

  constructor(db: Db) {
    this.#db = db;
    this.#sql = new StatementCache(db);
  }

  /**
   * Whether a write transaction is open (its rows may still roll back: nothing read now may be remembered). A
   * read-only connection (a search worker's, reading in one transaction) never has one.
   */
  get inTransaction(): boolean {
    return this.#db.inTransaction && !this.#db.readonly;
  }

  /** The document epoch, bumped by a trigger on every UPDATE or DELETE of a document row. */
  epoch(): number {
    return this.#sql.get('SELECT n FROM documents_epoch').pluck().get() as number;
  }

  /** The highest chunk seq ever given (AUTOINCREMENT's counter: a delete never lowers it; 0 before any chunk). */
  chunkSequence(): number {
    return this.#sql
      .get(`SELECT coalesce(max(seq), 0) FROM sqlite_sequence WHERE name = 'chunks'`)
      .pluck()
      .get() as number;
  }

  /** The highest document seq (0 for an empty store). */
  lastSeq(): number {
    return this.#sql.get('SELECT coalesce(max(seq), 0) FROM documents').pluck().get() as number;
  }

  /** The chunk seqs (vector keys) of a model among documents, JSON array `docs`; no access rule (keys of a set). */
  chunkKeys(tenant: string, model: string, docs: string): number[] {
    return this.#sql
      .get(
        // The unary + keeps SQLite on the documents' index (chunks_doc): through (tenant, model) it read every chunk
        // of the model for a set of 50 documents (issue #39: such sets come from field indexes at every query).
        `SELECT c.seq FROM chunks c WHERE c.doc_seq IN (SELECT value FROM json_each(?)) AND +c.model = ?
         AND +c.tenant_id = ? AND c.vector IS NOT NULL`,
      )
      .pluck()
      .all(docs, model, tenant) as number[];
  }

  /** The client vector seqs (vector keys) of a collection's vector among documents, JSON array `docs`. */
  vectorKeys(tenant: string, space: { readonly collection: string; readonly name: string }, docs: string): number[] {
    return this.#sql
      .get(
        // On the documents' index, as chunkKeys.
        `SELECT v.seq FROM document_vectors v WHERE v.doc_seq IN (SELECT value FROM json_each(?))
         AND +v.tenant_id = ? AND +v.collection = ? AND +v.name = ?`,
      )
      .pluck()
      .all(docs, tenant, space.collection, space.name) as number[];
  }

  /** The seqs, among `seqs`, of live documents the scope's viewer may read in its table. */
  readableSeqs(scope: ReadScope, seqs: readonly number[]): number[] {
    return this.#sql
      .get(`SELECT d.seq FROM documents d WHERE d.seq IN (SELECT value FROM json_each(@seqs)) AND ${readableCandidate}`)
      .pluck()
      .all({ ...readableBindings(scope), seqs: JSON.stringify(seqs) }) as number[];
  }

  /** The light rows, among `seqs`, of live documents the scope's viewer may read in its table. */
  readableLightRows(scope: ReadScope, seqs: readonly number[]): LightRow[] {
    return this.#rowsAmong(
      `SELECT ${lightColumns} FROM documents d WHERE d.seq IN (SELECT value FROM json_each(@seqs)) AND ${readableCandidate}`,
      scope,
      seqs,
    );
  }

  /** Chunks among `chunkSeqs` with their vectors and documents' light rows, under the same rule as readableSeqs(). */
  readableChunkVectors(scope: ReadScope, chunkSeqs: readonly number[]): VectorRow[] {
    return this.#rowsAmong(
      `SELECT c.seq, c.vector, ${lightColumns} FROM chunks c JOIN documents d ON d.seq = c.doc_seq
       WHERE c.seq IN (SELECT value FROM json_each(@seqs)) AND c.vector IS NOT NULL AND ${readableCandidate}`,
      scope,
      chunkSeqs,
    );
  }

  /** Client vectors among `vectorSeqs` with their documents' light rows, under the same rule. */
  readableDocumentVectors(scope: ReadScope, vectorSeqs: readonly number[]): VectorRow[] {
    return this.#rowsAmong(
      `SELECT v.seq, v.vector, ${lightColumns} FROM document_vectors v JOIN documents d ON d.seq = v.doc_seq
       WHERE v.seq IN (SELECT value FROM json_each(@seqs)) AND ${readableCandidate}`,
      scope,
      vectorSeqs,
    );
  }

  /** The raw rows `select` answers for `seqs` (its JSON array @seqs) and the scope's viewer (readableBindings). */
  #rowsAmong<Row>(select: string, scope: ReadScope, seqs: readonly number[]): Row[] {
    return this.#sql
      .get(select)
      .raw(true)
      .all({ ...readableBindings(scope), seqs: JSON.stringify(seqs) }) as Row[];
  }

  /** The newest live documents the viewer may read in the scope's table, at most `cap`, whole. */
  readableNewest(scope: ReadScope, cap: number): FullRow[] {
    return this.#sql
      .get(
        `SELECT ${lightColumns}, d.content, d.fields FROM documents d WHERE d.tenant_id = @tenant AND ${alive} AND (@table IS NULL OR d.primary_table = @table) AND ${readableSql}
         ORDER BY d.updated_at DESC, d.seq DESC LIMIT @cap`,
      )
      .raw(true)
      .all({ ...readableBindings(scope), cap }) as FullRow[];
  }

  /** Live documents the viewer may read in the scope's table, whole, in id order after `afterId`, at most `limit`. */
  readablePage(scope: ReadScope, afterId: string | null, limit: number): FullRow[] {
    return this.#sql
      .get(
        `SELECT ${lightColumns}, d.content, d.fields FROM documents d
         WHERE d.tenant_id = @tenant AND ${alive} AND (@table IS NULL OR d.primary_table = @table)
           AND (@after IS NULL OR d.id > @after) AND ${readableSql}
         ORDER BY d.id LIMIT @limit`,
      )
      .raw(true)
      .all({ ...readableBindings(scope), after: afterId, limit }) as FullRow[];
  }

  /**
   * Live documents the viewer may read among `seqs` (a filter's documents, from the field indexes), in id order
   * after `afterId`, at most `limit`: what `readablePage` answers, the filter applied already.
   */
  readablePageAmong(scope: ReadScope, seqs: readonly number[], afterId: string | null, limit: number): FullRow[] {
    return this.#sql
      .get(
        `SELECT ${lightColumns}, d.content, d.fields FROM documents d
         WHERE d.seq IN (SELECT value FROM json_each(@seqs)) AND ${readableCandidate}
           AND (@after IS NULL OR d.id > @after)
         ORDER BY d.id LIMIT @limit`,
      )
      .raw(true)
      .all({ ...readableBindings(scope), seqs: JSON.stringify(seqs), after: afterId, limit }) as FullRow[];
  }

  /** How many of `seqs` are live documents the viewer may read in the scope's table. */
  countReadableAmong(scope: ReadScope, seqs: readonly number[]): number {
    return this.#sql
      .get(
        `SELECT count(*) FROM documents d WHERE d.seq IN (SELECT value FROM json_each(@seqs)) AND ${readableCandidate}`,
      )
      .pluck()
      .get({ ...readableBindings(scope), seqs: JSON.stringify(seqs) }) as number;
  }

  /** The public live documents of a tenant (and table), at most `cap` (by the partial index documents_public). */
  publicSeqs(tenant: string, table: string | undefined, cap: number): number[] {
    const which = table === undefined ? '' : ' AND d.primary_table = @table';
    return this.#sql
      .get(
        `SELECT d.seq FROM documents d INDEXED BY documents_public
         WHERE d.tenant_id = @tenant${which} AND d.visibility = 'public' AND ${alive} LIMIT @cap`,
      )
      .pluck()
      .all({ tenant, cap, ...(table !== undefined && { table }) }) as number[];
  }

  /**
   * Seq, id and table of a tenant's document rows after `after`, every version, in seq order (the partitioned
   * collections' rows the dfs round counts, partitioned-places.ts).
   */
  rowsSince(tenant: string, after: number): [seq: number, id: string, table: string][] {
    return this.#sql
      .get(
        // A range of the rowid, never the tenant's index (`+`): only the rows written since are read.
        `SELECT d.seq, d.id, d.primary_table FROM documents d WHERE d.seq > @after AND +d.tenant_id = @tenant ORDER BY d.seq`,
      )
      .raw(true)
      .all({ tenant, after }) as [number, string, string][];
  }

  /**
   * Live documents of the scope's tenant (and table) that are not public and that an access entry lets the viewer
   * read (the access rule's second half, from document_access_principal), at most `cap`.
   */
  sharedSeqs(scope: ReadScope, cap: number): number[] {
    return this.#sql
      .get(
        // CROSS JOIN keeps the entries first (by document_access_principal): joined the other way, SQLite read the
        // tenant's every document and probed its entries (7 ms at 5,000 documents).
        `SELECT DISTINCT d.seq FROM document_access a CROSS JOIN documents d ON d.seq = a.doc_seq
         WHERE a.principal IN (SELECT value FROM json_each(@principals))
           AND (a.expires_at IS NULL OR a.expires_at > @now)
           AND d.visibility <> 'public' AND (a.role <> 'list' OR d.visibility = 'shared')
           AND +d.tenant_id = @tenant AND ${alive} AND (@table IS NULL OR d.primary_table = @table)
         LIMIT @cap`,
      )
      .pluck()
      .all({ ...readableBindings(scope), cap }) as number[];
  }

  /**
   * The seqs of live documents written after `after` that the scope's viewer may read in its table: a range of the
   * rowid, so only the rows written since are read (a kept readable set extended, readable-sets.ts).
   */
  readableSince(scope: ReadScope, after: number): number[] {
    return this.#sql
      .get(`SELECT d.seq FROM documents d WHERE d.seq > @after AND ${readableCandidate}`)
      .pluck()
      .all({ ...readableBindings(scope), after }) as number[];
  }

  /** How many live documents the viewer may read in the scope's table. */
  countReadable(scope: ReadScope): number {
    return this.#sql
      .get(
        `SELECT count(*) FROM documents d WHERE d.tenant_id = @tenant AND ${alive}
           AND (@table IS NULL OR d.primary_table = @table) AND ${readableSql}`,
      )
      .pluck()
      .get(readableBindings(scope)) as number;
  }

  /**
   * Titles and stored fields (JSON) of live documents the viewer may read, in any table, at most 50,000 (what
   * title and value completions read).
   */
  readableTitlesAndFields(scope: ReadScope): { id: string; table: string; title: string; fields: string }[] {
    return this.#sql
      .get(
        `SELECT d.id, d.primary_table AS "table", d.title, d.fields FROM documents d WHERE d.tenant_id = @tenant AND ${alive} AND ${readableSql} LIMIT 50000`,
      )
      .all({
        tenant: scope.viewer.tenantId,
        principals: principalsOf(scope.viewer),
        now: scope.now,
      }) as { id: string; table: string; title: string; fields: string }[];
  }

  /** Seqs of a tenant's documents whose location lies in a box (the R*Tree); the caller checks the rest. */
  seqsInBox(tenant: string, box: { minLat: number; maxLat: number; minLon: number; maxLon: number }): number[] {
    return this.#sql
      .get(
        `SELECT g.doc_seq FROM geo_rtree g JOIN documents d ON d.seq = g.doc_seq
         WHERE g.min_lat >= @minLat AND g.max_lat <= @maxLat AND g.min_lon >= @minLon AND g.max_lon <= @maxLon AND d.tenant_id = @tenant`,
      )
      .pluck()
      .all({ ...box, tenant }) as number[];
  }

  /** Stored fields (JSON) of documents by seq, for candidates the access rule already let through. */
  fieldsOf(seqs: readonly number[]): [seq: number, fields: string][] {
    return this.#sql
      .get('SELECT seq, fields FROM documents WHERE seq IN (SELECT value FROM json_each(?))')
      .raw(true)
      .all(JSON.stringify(seqs)) as [number, string][];
  }

  /**
   * Live documents of a tenant (and table) with seqs in (after, through], in seq order, at most `limit`, with
   * their light rows and stored fields; no access rule (the allowed sets' callers check hits with it).
   */
  livePage(tenant: string, table: string | undefined, after: number, through: number): [...LightRow, fields: string][] {
    // Two statements: `@table IS NULL OR ...` would keep SQLite off the (tenant_id, primary_table) index.
    const inTable = table === undefined ? '' : 'AND d.primary_table = @table';
    return this.#sql
      .get(
        `SELECT ${lightColumns}, d.fields FROM documents d
       WHERE d.tenant_id = @tenant ${inTable} AND ${alive} AND d.seq > @after AND d.seq <= @through
       ORDER BY d.seq LIMIT 10000`,
      )
      .raw(true)
      .all({ tenant, table: table ?? null, after, through }) as [...LightRow, string][];
  }

  /** A document's whole row by seq, for a candidate already let through (undefined once permanently deleted). */
  fullRow(seq: number): FullRow | undefined {
    return this.#sql
      .get(`SELECT ${lightColumns}, d.content, d.fields FROM documents d WHERE d.seq = ?`)
      .raw(true)
      .get(seq) as FullRow | undefined;
  }

  /** Whole rows of documents by seq, for candidates already let through. */
  fullRows(seqs: readonly number[]): FullRow[] {
    return this.#sql
      .get(
        `SELECT ${lightColumns}, d.content, d.fields FROM documents d WHERE d.seq IN (SELECT value FROM json_each(?))`,
      )
      .raw(true)
      .all(JSON.stringify(seqs)) as FullRow[];
  }

  /** The first chunk (chunk_index 0) of each document, by document seq. */
  firstChunks(docSeqs: readonly number[]): Map<number, number> {
    const rows = this.#sql
      .get('SELECT doc_seq, seq FROM chunks WHERE chunk_index = 0 AND doc_seq IN (SELECT value FROM json_each(?))')
      .all(JSON.stringify(docSeqs)) as { doc_seq: number; seq: number }[];
    return new Map(rows.map((r) => [r.doc_seq, r.seq]));
  }

  /** Chunks' texts and offsets by chunk seq. */
  chunkTexts(chunkSeqs: readonly number[]): Map<number, ChunkText> {
    const rows = this.#sql
      .get(
        'SELECT seq, chunk_index, content, start_offset, end_offset FROM chunks WHERE seq IN (SELECT value FROM json_each(?))',
      )
      .all(JSON.stringify(chunkSeqs)) as ChunkText[];
    return new Map(rows.map((c) => [c.seq, c]));
  }

  /**
   * Every stored vector of a space of live documents of a tenant (an exact scan reads them all): a collection's
   * own vector (`client`) or a model's chunk vectors. No access rule: hits are loaded under it.
   */
  liveSpaceVectors(
    tenant: string,
    space: {
      readonly client?: { readonly collection: string; readonly name: string } | undefined;
      readonly model: string;
    },
  ): { seq: number; doc_seq: number; vector: Buffer }[] {
    const client = space.client;
    return (
      client
        ? this.#sql
            .get(
              `SELECT v.seq, v.doc_seq, v.vector FROM document_vectors v JOIN documents d ON d.seq = v.doc_seq
             WHERE v.tenant_id = ? AND v.collection = ? AND v.name = ? AND d.deleted_at IS NULL AND d.superseded = 0`,
            )
            .all(tenant, client.collection, client.name)
        : this.#sql
            .get(
              `SELECT c.seq, c.doc_seq, c.vector FROM chunks c JOIN documents d ON d.seq = c.doc_seq
             WHERE c.tenant_id = ? AND c.model = ? AND c.vector IS NOT NULL AND d.deleted_at IS NULL AND d.superseded = 0`,
            )
            .all(tenant, space.model)
    ) as { seq: number; doc_seq: number; vector: Buffer }[];
  }

  /** Chunk vectors (any model) of live documents of a tenant among `ids`, with their document id and model. */
  liveChunkVectorsOf(tenant: string, ids: readonly string[]): { id: string; model: string; vector: Buffer }[] {
    return this.#sql
      .get(
        `SELECT d.id AS id, c.model AS model, c.vector AS vector FROM documents d JOIN chunks c ON c.doc_seq = d.seq
       WHERE d.tenant_id = ? AND d.id IN (SELECT value FROM json_each(?)) AND c.vector IS NOT NULL AND d.deleted_at IS NULL AND d.superseded = 0
       ORDER BY c.doc_seq, c.chunk_index`,
      )
      .all(tenant, JSON.stringify(ids)) as { id: string; model: string; vector: Buffer }[];
  }

  /** A collection's own vector of live documents of a tenant among `ids`, with their document id. */
  liveClientVectorsOf(
    tenant: string,
    space: { readonly collection: string; readonly name: string },
    ids: readonly string[],
  ): { id: string; vector: Buffer }[] {
    return this.#sql
      .get(
        `SELECT d.id AS id, v.vector AS vector FROM documents d JOIN document_vectors v ON v.doc_seq = d.seq
       WHERE d.tenant_id = ? AND v.collection = ? AND v.name = ? AND d.id IN (SELECT value FROM json_each(?))
         AND d.deleted_at IS NULL AND d.superseded = 0`,
      )
      .all(tenant, space.collection, space.name, JSON.stringify(ids)) as { id: string; vector: Buffer }[];
  }

  /** Each live document of a tenant with its collection; no access rule (a recommendation's part, decision 0092). */
  liveIdTables(tenant: string): { id: string; table: string }[] {
    return this.#sql
      .get(
        'SELECT id, primary_table AS "table" FROM documents WHERE tenant_id = ? AND deleted_at IS NULL AND superseded = 0',
      )
      .all(tenant) as { id: string; table: string }[];
  }

  /** How many chunk vectors each live document of a tenant has in each model, with its collection. */
  liveChunkModels(tenant: string): { id: string; table: string; model: string; n: number }[] {
    return this.#sql
      .get(
        `SELECT d.id AS id, d.primary_table AS "table", c.model AS model, count(*) AS n FROM documents d
         JOIN chunks c ON c.doc_seq = d.seq
         WHERE d.tenant_id = ? AND c.vector IS NOT NULL AND d.deleted_at IS NULL AND d.superseded = 0
         GROUP BY d.seq, c.model`,
      )
      .all(tenant) as { id: string; table: string; model: string; n: number }[];
  }

  /** Ids of every live document of a tenant; no access rule (recommendations load candidates under it). */
  liveIds(tenant: string): string[] {
    return this.#sql
      .get('SELECT id FROM documents WHERE tenant_id = ? AND deleted_at IS NULL AND superseded = 0')
      .pluck()
      .all(tenant) as string[];
  }

  /** Seqs of a tenant's document rows (every version) with these ids; the caller loads them under the rule. */
  seqsOfIds(tenant: string, ids: readonly string[]): number[] {
    return this.#sql
      .get('SELECT seq FROM documents WHERE tenant_id = ? AND id IN (SELECT value FROM json_each(?))')
      .pluck()
      .all(tenant, JSON.stringify(ids)) as number[];
  }
}
