import type { Db } from '../storage/database.js';
import { StatementCache } from '../storage/statement-cache.js';
import type { RankedChunk } from '../text/bm25-index.js';
import type { TextIndex } from '../text/text-index.js';
import { indexTerms } from '../text/tokenize.js';
import type { TextMatch } from './fts-query.js';
import { ftsRanked } from './fts-rank.js';
import type { VectorIndexes } from '../documents/vector-index.js';
import { principalsOf, readableSql } from '../documents/access.js';
import { chunkId } from '../documents/document-view.js';
import type { Viewer } from '../documents/types.js';
import { matchesFilters, fieldValue, type FilterGroup, type FilterableDocument } from './filters.js';
import { PublicRows } from './public-rows.js';
import { boundingBox, haversineKm, pointOf } from './geo.js';

/** Readable chunks a text search reads at most; total_hits is exact up to this many matching chunks. */
export const maxTextCandidates = 10_000;
/** Chunks read at most to find those readable chunks, unreadable ones included. */
const maxTextDepth = 5 * maxTextCandidates;

export interface GeoFilter {
  readonly lat: number;
  readonly lon: number;
  readonly radiusKm: number;
  /** `location`, or a metadata key holding a point ("lat,lon", [lat, lon] or {lat, lon}). */
  readonly field: string;
}

/** Restrictions every search kind applies after access control. */
export interface Scope {
  readonly viewer: Viewer;
  readonly now: number;
  readonly table?: string | undefined;
  readonly filters?: FilterGroup | undefined;
  readonly geo?: GeoFilter | undefined;
  /** Only documents that have a location (text search's require_geo). */
  readonly requireGeo?: boolean;
}

export interface LoadedDocument extends FilterableDocument {
  readonly seq: number;
  readonly lat: number | null;
  readonly lon: number | null;
  readonly model: string | null;
}

export interface ChunkHit {
  readonly seq: number;
  readonly score: number;
}

export interface Hit {
  readonly doc: LoadedDocument;
  score: number;
  chunks: ChunkHit[];
  distance?: number;
  table?: string;
  joined?: { table: string; document_id: string; title: string }[];
  /** Recommendations: the score each strategy gave. */
  strategies?: Record<string, number>;
}

export interface SearchResultView {
  document_id: string;
  title: string;
  chunks: { id: string; content: string; type: string; score: number; metadata: Record<string, number> }[];
  metadata: Record<string, string | number | boolean>;
  score: number;
  distance?: number;
  table?: string;
  joined?: { table: string; document_id: string; title: string }[];
  strategies?: Record<string, number>;
}

const alive = 'd.deleted_at IS NULL AND d.superseded = 0';

/**
 * A candidate document `d` (found by seq) that a search may return: the viewer's tenant (`+` keeps SQLite on the
 * seq lookups rather than the tenant's index), live, in the scope's table, and readable under the access rule.
 */
export const readableCandidate = `+d.tenant_id = @tenant AND ${alive} AND (@table IS NULL OR d.primary_table = @table) AND ${readableSql}`;

/**
 * The columns a search reads of every candidate, as arrays (better-sqlite3's raw mode: building row objects
 * costs more than the query itself when hundreds of candidates are read).
 */
const lightColumns =
  'd.seq, d.id, d.title, d.primary_table, d.visibility, d.created_at, d.updated_at, d.parent_doc_id, d.cluster, d.lat, d.lon, d.model';
type LightRow = [
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
type HeavyRow = [content: string, fields: string];

type FullRow = [...LightRow, ...HeavyRow];

/**
 * A candidate document. What is not given when it is made is read on first use — its content and stored fields
 * (the large part of a row, and a JSON parse), or the whole row for a candidate known only by its seq: most
 * candidates are ranked and dropped without them; only filters and the results shown need them.
 */
class CandidateDocument implements LoadedDocument {
  readonly seq: number;
  readonly #read: (seq: number) => FullRow | undefined;
  #light: LightRow | undefined;
  #content: string | undefined;
  #fields: LoadedDocument['fields'] | undefined;
  #missing = false;

  constructor(seq: number, read: (seq: number) => FullRow | undefined, light?: LightRow, heavy?: HeavyRow) {
    this.seq = seq;
    this.#read = read;
    this.#light = light;
    if (heavy) this.#setHeavy(heavy);
  }

  get id(): string {
    return this.#row()[1];
  }
  get title(): string {
    return this.#row()[2];
  }
  get primary_table(): string {
    return this.#row()[3];
  }
  get visibility(): string {
    return this.#row()[4];
  }
  get created_at(): number {
    return this.#row()[5];
  }
  get updated_at(): number {
    return this.#row()[6];
  }
  get parent_doc_id(): string | null {
    return this.#row()[7];
  }
  get cluster(): number | null {
    return this.#row()[8];
  }
  get lat(): number | null {
    return this.#row()[9];
  }
  get lon(): number | null {
    return this.#row()[10];
  }
  get model(): string | null {
    return this.#row()[11];
  }

  /** Whether the row was deleted permanently after the search read its seq (reads it if need be). */
  get missing(): boolean {
    this.#row();
    return this.#missing;
  }

  get content(): string {
    if (this.#content === undefined) this.#readAll();
    return this.#content!;
  }

  get fields(): LoadedDocument['fields'] {
    if (this.#fields === undefined) this.#readAll();
    return this.#fields!;
  }

  #row(): LightRow {
    if (!this.#light) this.#readAll();
    return this.#light!;
  }

  /** Whether the stored fields are in memory (filters read them). */
  get hasFields(): boolean {
    return this.#fields !== undefined;
  }

  /** Takes the stored fields, read by the caller with other candidates' (the content stays lazy). */
  setFields(json: string): void {
    this.#fields ??= JSON.parse(json) as LoadedDocument['fields'];
  }

  /** Whether the content and fields are in memory (else the first use reads the row). */
  get complete(): boolean {
    return this.#content !== undefined;
  }

  #readAll(): void {
    this.fill(this.#read(this.seq));
  }

  /** Takes the document's whole row, read by the caller (several at once); undefined: it no longer exists. */
  fill(row: FullRow | undefined): void {
    this.#missing = !row;
    this.#light ??= row
      ? (row.slice(0, 12) as LightRow)
      : [this.seq, '', '', '', 'private', 0, 0, null, null, null, null, null];
    this.#setHeavy(row ? (row.slice(12) as HeavyRow) : undefined);
  }

  #setHeavy(heavy: HeavyRow | undefined): void {
    this.#content = heavy?.[0] ?? '';
    this.#fields = heavy ? (JSON.parse(heavy[1]) as LoadedDocument['fields']) : {};
  }
}

const round = (x: number) => Math.round(x * 1e6) / 1e6;

/** Whether a search must read its candidates' rows to decide (filters, a geo restriction), not only rank them. */
const scopeReadsRows = (scope: Scope): boolean =>
  scope.filters !== undefined || scope.geo !== undefined || Boolean(scope.requireGeo);

/**
 * What every search kind shares: candidate loading under the access rule, filters and geo restrictions, and the
 * shape of results. The access rule is applied in SQL on every candidate, so no search can return a document the
 * caller cannot GET.
 */
export class SearchCore {
  readonly db: Db;
  readonly text: TextIndex;
  readonly vectors: VectorIndexes;
  /** Prepared statements, compiled once (compiling costs more than running these queries). */
  readonly sql: StatementCache;
  readonly #public: PublicRows<LightRow>;

  constructor(db: Db, text: TextIndex, vectors: VectorIndexes) {
    this.db = db;
    this.sql = new StatementCache(db);
    this.#public = new PublicRows(db);
    this.text = text;
    this.vectors = vectors;
  }

  /** Memory of the remembered public rows (estimated). */
  rowCacheMemory(): { bytes: number; rows: number; maxRows: number } {
    return this.#public.memory();
  }

  /**
   * Live documents the viewer may read, among `seqs`, restricted to the scope's table. `lazy`: only their seqs are
   * read now, the rest of each row when first used. Public documents an earlier load read come from memory.
   */
  load(scope: Scope, seqs: readonly number[], options: { lazy?: boolean } = {}): Map<number, LoadedDocument> {
    const out = new Map<number, LoadedDocument>();
    const tenant = scope.viewer.tenantId;
    const remembering = this.#public.sync();
    const unknown: number[] = [];
    for (const seq of seqs) {
      const row = remembering ? this.#public.get(seq, tenant, scope.table) : undefined;
      if (row) out.set(seq, new CandidateDocument(seq, this.#readRow, row));
      else unknown.push(seq);
    }
    const where = `WHERE d.seq IN (SELECT value FROM json_each(@seqs)) AND ${readableCandidate}`;
    for (let i = 0; i < unknown.length; i += 5000) {
      const bind = { ...this.#bind(scope), seqs: JSON.stringify(unknown.slice(i, i + 5000)) };
      if (options.lazy) {
        const found = this.sql.get(`SELECT d.seq FROM documents d ${where}`).pluck().all(bind) as number[];
        for (const seq of found) out.set(seq, new CandidateDocument(seq, this.#readRow));
      } else {
        const rows = this.sql.get(`SELECT ${lightColumns} FROM documents d ${where}`).raw(true).all(bind) as LightRow[];
        for (const row of rows) {
          out.set(row[0], new CandidateDocument(row[0], this.#readRow, row));
          if (remembering) this.#public.remember(row[0], tenant, row[3], row[4], row);
        }
      }
    }
    return out;
  }

  /**
   * Candidate chunks with their stored vectors and documents, in one query, under the same rule as load(): only
   * chunks of live documents the viewer may read (and of the scope's table).
   */
  loadChunkVectors(
    scope: Scope,
    chunkSeqs: readonly number[],
  ): { chunks: { seq: number; doc: number; vector: Float32Array }[]; docs: Map<number, LoadedDocument> } {
    const rows = this.sql
      .get(
        `SELECT c.seq, c.vector, ${lightColumns} FROM chunks c JOIN documents d ON d.seq = c.doc_seq
         WHERE c.seq IN (SELECT value FROM json_each(@seqs)) AND c.vector IS NOT NULL AND ${readableCandidate}`,
      )
      .raw(true)
      .all({ ...this.#bind(scope), seqs: JSON.stringify(chunkSeqs) }) as [number, Buffer, ...LightRow][];
    const docs = new Map<number, LoadedDocument>();
    const chunks = rows.map(([seq, blob, ...light]) => {
      if (!docs.has(light[0])) docs.set(light[0], new CandidateDocument(light[0], this.#readRow, light));
      return { seq, doc: light[0], vector: new Float32Array(blob.buffer, blob.byteOffset, blob.byteLength / 4) };
    });
    return { chunks, docs };
  }

  /** Candidate client vectors (document_vectors) with their documents, under the same rule as loadChunkVectors(). */
  loadDocumentVectors(
    scope: Scope,
    vectorSeqs: readonly number[],
  ): { chunks: { seq: number; doc: number; vector: Float32Array }[]; docs: Map<number, LoadedDocument> } {
    const rows = this.sql
      .get(
        `SELECT v.seq, v.vector, ${lightColumns} FROM document_vectors v JOIN documents d ON d.seq = v.doc_seq
         WHERE v.seq IN (SELECT value FROM json_each(@seqs)) AND ${readableCandidate}`,
      )
      .raw(true)
      .all({ ...this.#bind(scope), seqs: JSON.stringify(vectorSeqs) }) as [number, Buffer, ...LightRow][];
    const docs = new Map<number, LoadedDocument>();
    const chunks = rows.map(([seq, blob, ...light]) => {
      if (!docs.has(light[0])) docs.set(light[0], new CandidateDocument(light[0], this.#readRow, light));
      return { seq, doc: light[0], vector: new Float32Array(blob.buffer, blob.byteOffset, blob.byteLength / 4) };
    });
    return { chunks, docs };
  }

  /** Every live document the viewer may read (for filter-only searches), at most `cap`. */
  all(scope: Scope, cap = 100_000): LoadedDocument[] {
    const rows = this.sql
      .get(
        `SELECT ${lightColumns}, d.content, d.fields FROM documents d WHERE d.tenant_id = @tenant AND ${alive} AND (@table IS NULL OR d.primary_table = @table) AND ${readableSql}
         ORDER BY d.updated_at DESC, d.seq DESC LIMIT @cap`,
      )
      .raw(true)
      .all({ ...this.#bind(scope), cap }) as [...LightRow, ...HeavyRow][];
    return rows.map(
      (row) => new CandidateDocument(row[0], this.#readRow, row.slice(0, 12) as LightRow, row.slice(12) as HeavyRow),
    );
  }

  /**
   * Live documents the viewer may read, in the scope's table, in id order after `afterId` (a stable cursor: a
   * document keeps its id across versions), at most `limit` rows read; filters are the caller's to apply.
   */
  page(scope: Scope, afterId: string | null, limit: number): LoadedDocument[] {
    const rows = this.sql
      .get(
        `SELECT ${lightColumns}, d.content, d.fields FROM documents d
         WHERE d.tenant_id = @tenant AND ${alive} AND (@table IS NULL OR d.primary_table = @table)
           AND (@after IS NULL OR d.id > @after) AND ${readableSql}
         ORDER BY d.id LIMIT @limit`,
      )
      .raw(true)
      .all({ ...this.#bind(scope), after: afterId, limit }) as [...LightRow, ...HeavyRow][];
    return rows.map(
      (row) => new CandidateDocument(row[0], this.#readRow, row.slice(0, 12) as LightRow, row.slice(12) as HeavyRow),
    );
  }

  /** Live documents the viewer may read in the scope's table (no filters), counted in SQL. */
  countReadable(scope: Scope): number {
    return this.sql
      .get(
        `SELECT count(*) FROM documents d WHERE d.tenant_id = @tenant AND ${alive}
           AND (@table IS NULL OR d.primary_table = @table) AND ${readableSql}`,
      )
      .pluck()
      .get(this.#bind(scope)) as number;
  }

  /** Applies filters and the geo restriction; answers the distance (km) when there is a geo restriction. */
  accept(doc: LoadedDocument, scope: Scope): { ok: boolean; distance?: number } {
    if (scope.filters && !matchesFilters(doc, scope.filters)) return { ok: false };
    if (!scope.requireGeo && !scope.geo) return { ok: true };
    const point = this.pointOf(doc, scope.geo?.field ?? 'location');
    if (scope.requireGeo && !point) return { ok: false };
    if (!scope.geo) return { ok: true };
    if (!point) return { ok: false };
    const distance = haversineKm(scope.geo.lat, scope.geo.lon, point[0], point[1]);
    return distance <= scope.geo.radiusKm ? { ok: true, distance } : { ok: false };
  }

  pointOf(doc: LoadedDocument, field: string): [number, number] | undefined {
    if (field === 'location') return doc.lat !== null && doc.lon !== null ? [doc.lat, doc.lon] : undefined;
    return pointOf(fieldValue(doc, field.startsWith('metadata.') ? field : `metadata.${field}`));
  }

  /** Documents located within a radius, via the R*Tree then the exact distance. */
  nearby(scope: Scope & { geo: GeoFilter }): number[] {
    const box = boundingBox(scope.geo.lat, scope.geo.lon, scope.geo.radiusKm);
    return this.sql
      .get(
        `SELECT g.doc_seq FROM geo_rtree g JOIN documents d ON d.seq = g.doc_seq
         WHERE g.min_lat >= @minLat AND g.max_lat <= @maxLat AND g.min_lon >= @minLon AND g.max_lon <= @maxLon AND d.tenant_id = @tenant`,
      )
      .pluck()
      .all({ ...box, tenant: scope.viewer.tenantId }) as number[];
  }

  /**
   * Full-text hits ranked by BM25 (title weighted twice the content), grouped by document: a document's score is
   * its best chunk's; its chunks are those that matched, best first. Ranked by the tenant's in-memory index, or
   * through FTS5 with the same scores while it loads (fts-rank.ts).
   *
   * Only a window of the best chunks is read: with a `limit`, the best 20 × limit chunks (at least 200) the caller
   * may read, widened while filters or the scope's table leave too few; without one (facets, joins), 10,000. Chunks
   * the caller may not read are passed over, not counted in the window (up to 50,000 chunks are read to fill it),
   * so neither the results nor `total_hits` depend on documents the caller cannot read.
   */
  textHits(scope: Scope, match: TextMatch, options: { limit?: number } = {}): Hit[] {
    const tenantId = scope.viewer.tenantId;
    if (!this.text.tables(tenantId)) return [];
    const ranked = this.text.ranked(tenantId);
    let read: (cap: number) => readonly RankedChunk[];
    if (ranked && 'words' in match) {
      const terms = match.words.flatMap(indexTerms);
      read = (cap) => ranked.search(terms, cap);
    } else if (ranked && 'phrase' in match) {
      const terms = match.phrase.flatMap(indexTerms);
      read = (cap) => ranked.phrase(terms, cap);
    } else if (ranked && 'groups' in match) {
      const groups = match.groups.map((group) => group.flatMap(indexTerms));
      read = (cap) => ranked.groups(groups, cap);
    } else {
      const readable = { sql: readableCandidate, bind: scopeBindings({ ...scope, table: undefined }) };
      read = (cap) => ftsRanked(this, tenantId, match, cap, readable);
    }
    // Candidates are only ranked and counted unless filters or a geo restriction must look at them, or every hit
    // is wanted (facets): then their rows are read with them, else only the results' rows are read.
    const lazy = options.limit !== undefined && !scopeReadsRows(scope);
    let want = options.limit ? Math.min(maxTextCandidates, Math.max(options.limit * 20, 200)) : maxTextCandidates;
    let depth = want;
    // What earlier rounds learnt about the candidates' documents: loaded (readable in scope), readable in any table.
    const docs = new Map<number, LoadedDocument>();
    const readable = new Set<number>();
    const checked = new Set<number>();
    for (;;) {
      const rows = read(depth);
      this.#check(scope, rows, lazy, { docs, readable, checked });
      const window: RankedChunk[] = [];
      for (const row of rows) {
        if (window.length === want) break;
        if (readable.has(row.doc)) window.push(row);
      }
      if (window.length < want && rows.length === depth && depth < maxTextDepth) {
        // Deeper, in proportion to the share of readable chunks so far (at least 1.5 times, at most 5 times).
        const needed = (want * rows.length) / Math.max(1, window.length);
        depth = Math.min(maxTextDepth, Math.ceil(Math.min(depth * 5, Math.max(depth * 1.5, needed * 1.1))));
        continue;
      }
      const hits = this.group(scope, window, docs);
      if (!options.limit || hits.length >= options.limit || rows.length < depth || want >= maxTextCandidates)
        return hits;
      want = Math.min(maxTextCandidates, want * 5);
      depth = Math.max(depth, want);
    }
  }

  /**
   * Loads the rows' documents not checked yet: into `docs` those readable in the scope, into `readable` those
   * readable in any table (when the scope names a table, the window counts other tables' documents the caller may
   * read, as it counts those that filters reject).
   */
  #check(
    scope: Scope,
    rows: readonly RankedChunk[],
    lazy: boolean,
    known: { docs: Map<number, LoadedDocument>; readable: Set<number>; checked: Set<number> },
  ): void {
    const fresh = [...new Set(rows.flatMap((r) => (known.checked.has(r.doc) ? [] : [r.doc])))];
    if (fresh.length === 0) return;
    for (const seq of fresh) known.checked.add(seq);
    const loaded = this.load(scope, fresh, { lazy });
    for (const [seq, doc] of loaded) {
      known.docs.set(seq, doc);
      known.readable.add(seq);
    }
    if (scope.table === undefined) return;
    const others = fresh.filter((seq) => !loaded.has(seq));
    for (const seq of this.load({ ...scope, table: undefined }, others, { lazy: true }).keys()) known.readable.add(seq);
  }

  /** Groups chunk hits by document (best chunk scores the document), loading and filtering the documents. */
  group(scope: Scope, chunkHits: readonly RankedChunk[], loaded?: Map<number, LoadedDocument>, lazy = false): Hit[] {
    const docs = loaded ?? this.load(scope, [...new Set(chunkHits.map((h) => h.doc))], { lazy });
    if (scope.filters) this.#readFields(docs.values());
    const hits = new Map<number, Hit>();
    for (const h of chunkHits) {
      let hit = hits.get(h.doc);
      if (!hit) {
        const doc = docs.get(h.doc);
        if (!doc) continue;
        const accepted = this.accept(doc, scope);
        if (!accepted.ok) {
          docs.delete(h.doc);
          continue;
        }
        hit = {
          doc,
          score: h.score,
          chunks: [],
          ...(accepted.distance !== undefined && { distance: accepted.distance }),
        };
        hits.set(h.doc, hit);
      }
      hit.score = Math.max(hit.score, h.score);
      hit.chunks.push({ seq: h.chunk, score: h.score });
    }
    return [...hits.values()].sort((a, b) => b.score - a.score);
  }

  /** Turns hits into the API's result shape: the top `limit`, each with its best three chunks. */
  results(hits: readonly Hit[], limit: number): SearchResultView[] {
    // Documents known only by seq so far are read in one query (a permanently deleted one is then missing).
    const unread = hits
      .slice(0, limit)
      .flatMap((h) => (h.doc instanceof CandidateDocument && !h.doc.complete ? [h.doc] : []));
    if (unread.length > 0) {
      const rows = new Map(
        (
          this.sql
            .get(
              `SELECT ${lightColumns}, d.content, d.fields FROM documents d WHERE d.seq IN (SELECT value FROM json_each(?))`,
            )
            .raw(true)
            .all(JSON.stringify(unread.map((d) => d.seq))) as FullRow[]
        ).map((row) => [row[0], row]),
      );
      for (const doc of unread) doc.fill(rows.get(doc.seq));
    }
    // A hit whose document was deleted permanently while the search ran (hybrid waits for an embedding) is dropped.
    const top: Hit[] = [];
    for (const hit of hits) {
      if (top.length === limit) break;
      if (!(hit.doc instanceof CandidateDocument && hit.doc.missing)) top.push(hit);
    }
    // Hits found without a chunk (geo, facets, joins) show their document's first chunk.
    const bare = top.filter((h) => h.chunks.length === 0);
    if (bare.length > 0) {
      const first = new Map(
        (
          this.sql
            .get(
              'SELECT doc_seq, seq FROM chunks WHERE chunk_index = 0 AND doc_seq IN (SELECT value FROM json_each(?))',
            )
            .all(JSON.stringify(bare.map((h) => h.doc.seq))) as { doc_seq: number; seq: number }[]
        ).map((r) => [r.doc_seq, r.seq]),
      );
      for (const hit of bare) {
        const seq = first.get(hit.doc.seq);
        if (seq !== undefined) hit.chunks = [{ seq, score: hit.score }];
      }
    }
    const chunkSeqs = top.flatMap((h) => h.chunks.slice(0, 3).map((c) => c.seq));
    const chunks = new Map(
      (
        this.sql
          .get(
            'SELECT seq, chunk_index, content, start_offset, end_offset FROM chunks WHERE seq IN (SELECT value FROM json_each(?))',
          )
          .all(JSON.stringify(chunkSeqs)) as {
          seq: number;
          chunk_index: number;
          content: string;
          start_offset: number;
          end_offset: number;
        }[]
      ).map((c) => [c.seq, c]),
    );
    return top.map((hit) => ({
      document_id: hit.doc.id,
      title: hit.doc.title,
      chunks: hit.chunks.slice(0, 3).flatMap((c) => {
        const chunk = chunks.get(c.seq);
        return chunk
          ? [
              {
                id: chunkId(hit.doc.id, chunk.chunk_index),
                content: chunk.content,
                type: 'text',
                score: round(c.score),
                // Where the chunk lies in its document (characters of the content).
                metadata: {
                  chunk_index: chunk.chunk_index,
                  start_offset: chunk.start_offset,
                  end_offset: chunk.end_offset,
                },
              },
            ]
          : [];
      }),
      metadata: (hit.doc.fields.metadata ?? {}) as Record<string, string | number | boolean>,
      score: round(hit.score),
      ...(hit.distance !== undefined && { distance: round(hit.distance) }),
      ...(hit.table !== undefined && { table: hit.table }),
      ...(hit.joined !== undefined && { joined: hit.joined }),
      ...(hit.strategies !== undefined && { strategies: hit.strategies }),
    }));
  }

  /**
   * Reads the stored fields of candidates that lack them in one query (filters read them; one query per candidate
   * cost a filtered vector search most of its time). Content stays lazy: only a filter on it reads it.
   */
  #readFields(docs: Iterable<LoadedDocument>): void {
    const missing = [...docs].filter((d): d is CandidateDocument => d instanceof CandidateDocument && !d.hasFields);
    for (let i = 0; i < missing.length; i += 5000) {
      const slice = missing.slice(i, i + 5000);
      const fields = new Map(
        this.sql
          .get('SELECT seq, fields FROM documents WHERE seq IN (SELECT value FROM json_each(?))')
          .raw(true)
          .all(JSON.stringify(slice.map((d) => d.seq))) as [number, string][],
      );
      for (const doc of slice) {
        const json = fields.get(doc.seq);
        if (json !== undefined) doc.setFields(json);
      }
    }
  }

  readonly #readRow = (seq: number): FullRow | undefined =>
    this.sql.get(`SELECT ${lightColumns}, d.content, d.fields FROM documents d WHERE d.seq = ?`).raw(true).get(seq) as
      FullRow | undefined;

  #bind(scope: Scope) {
    return scopeBindings(scope);
  }
}

/** The SQL parameters of `readableCandidate` for a scope. */
export function scopeBindings(scope: Scope): { tenant: string; table: string | null; principals: string; now: number } {
  return {
    tenant: scope.viewer.tenantId,
    table: scope.table ?? null,
    principals: principalsOf(scope.viewer),
    now: scope.now,
  };
}
