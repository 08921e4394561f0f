import type { Db } from '../storage/database.js';
import type { RankedChunk } from '../text/bm25-index.js';
import type { TextIndex } from '../text/text-index.js';
import { indexTerms } from '../text/tokenize.js';
import type { TextMatch } from './fts-query.js';
import { ftsRanked } from './fts-rank.js';
import type { VectorIndexes } from '../documents/vector-index.js';
import type { Viewer } from '../documents/types.js';
import { EngagementStore } from '../documents/engagement-store.js';
import { AllowedSets } from './allowed-sets.js';
import { resultViews, type SearchResultView } from './result-view.js';
import { CandidateDocument } from './candidate-document.js';
import { SearchRows, type FullRow, type HeavyRow, type LightRow, type VectorRow } from '../documents/search-rows.js';
import { FtsRows } from '../text/fts-rows.js';
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
  /** Every SQL statement of searches on documents, chunks and vectors (the access rule applied in SQL). */
  readonly rows: SearchRows;
  /** Every SQL statement of searches on the FTS5 tables. */
  readonly fts: FtsRows;
  readonly #public: PublicRows<LightRow>;
  /** The documents recent filters let through, for filtered vector search. */
  readonly allowed: AllowedSets;
  readonly engagement: EngagementStore;

  constructor(db: Db, text: TextIndex, vectors: VectorIndexes) {
    this.db = db;
    this.rows = new SearchRows(db);
    this.fts = new FtsRows(db);
    this.#public = new PublicRows(this.rows);
    this.engagement = new EngagementStore(db);
    this.allowed = new AllowedSets(this.rows, (tenant, table, after, through) =>
      this.#filterable(tenant, table, after, through),
    );
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
    for (let i = 0; i < unknown.length; i += 5000) {
      const slice = unknown.slice(i, i + 5000);
      if (options.lazy) {
        for (const seq of this.rows.readableSeqs(scope, slice)) out.set(seq, new CandidateDocument(seq, this.#readRow));
      } else {
        const rows = this.rows.readableLightRows(scope, slice);
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
    return this.#vectorCandidates(this.rows.readableChunkVectors(scope, chunkSeqs));
  }

  /** Candidate client vectors (document_vectors) with their documents, under the same rule as loadChunkVectors(). */
  loadDocumentVectors(
    scope: Scope,
    vectorSeqs: readonly number[],
  ): { chunks: { seq: number; doc: number; vector: Float32Array }[]; docs: Map<number, LoadedDocument> } {
    return this.#vectorCandidates(this.rows.readableDocumentVectors(scope, vectorSeqs));
  }

  #vectorCandidates(rows: readonly VectorRow[]): {
    chunks: { seq: number; doc: number; vector: Float32Array }[];
    docs: Map<number, LoadedDocument>;
  } {
    const docs = new Map<number, LoadedDocument>();
    const chunks = rows.map(([seq, blob, ...light]) => {
      if (!docs.has(light[0])) docs.set(light[0], new CandidateDocument(light[0], this.#readRow, light));
      return { seq, doc: light[0], vector: new Float32Array(blob.buffer, blob.byteOffset, blob.byteLength / 4) };
    });
    return { chunks, docs };
  }

  /** Every live document the viewer may read (for filter-only searches), at most `cap`. */
  all(scope: Scope, cap = 100_000): LoadedDocument[] {
    const rows = this.rows.readableNewest(scope, cap);
    return rows.map(
      (row) => new CandidateDocument(row[0], this.#readRow, row.slice(0, 12) as LightRow, row.slice(12) as HeavyRow),
    );
  }

  /**
   * Live documents the viewer may read, in the scope's table, in id order after `afterId` (a stable cursor: a
   * document keeps its id across versions), at most `limit` rows read; filters are the caller's to apply.
   */
  page(scope: Scope, afterId: string | null, limit: number): LoadedDocument[] {
    const rows = this.rows.readablePage(scope, afterId, limit);
    return rows.map(
      (row) => new CandidateDocument(row[0], this.#readRow, row.slice(0, 12) as LightRow, row.slice(12) as HeavyRow),
    );
  }

  /** Live documents the viewer may read in the scope's table (no filters), counted in SQL. */
  countReadable(scope: Scope): number {
    return this.rows.countReadable(scope);
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
    return this.rows.seqsInBox(scope.viewer.tenantId, box);
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
      // Every table: the window counts other tables' chunks the caller may read (see #check).
      const everyTable = { ...scope, table: undefined };
      read = (cap) => ftsRanked(this, everyTable, match, cap);
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
    return resultViews(this.rows, hits, limit);
  }

  /**
   * Reads the stored fields of candidates that lack them in one query (filters read them; one query per candidate
   * cost a filtered vector search most of its time). Content stays lazy: only a filter on it reads it.
   */
  #readFields(docs: Iterable<LoadedDocument>): void {
    const missing = [...docs].filter((d): d is CandidateDocument => d instanceof CandidateDocument && !d.hasFields);
    for (let i = 0; i < missing.length; i += 5000) {
      const slice = missing.slice(i, i + 5000);
      const fields = new Map(this.rows.fieldsOf(slice.map((d) => d.seq)));
      for (const doc of slice) {
        const json = fields.get(doc.seq);
        if (json !== undefined) doc.setFields(json);
      }
    }
  }

  /**
   * Live documents of a tenant (and table) with seqs in (after, through], with their stored fields (the content
   * stays lazy), read a page at a time; no access rule (the allowed sets' callers check hits with it).
   */
  *#filterable(tenant: string, table: string | undefined, after: number, through: number): Iterable<LoadedDocument> {
    for (let from = after; ;) {
      const rows = this.rows.livePage(tenant, table, from, through);
      for (const row of rows) {
        const doc = new CandidateDocument(row[0], this.#readRow, row.slice(0, 12) as LightRow);
        doc.setFields(row[12]);
        yield doc;
      }
      if (rows.length < 10000) return;
      from = rows[rows.length - 1]![0];
    }
  }

  readonly #readRow = (seq: number): FullRow | undefined => this.rows.fullRow(seq);
}
