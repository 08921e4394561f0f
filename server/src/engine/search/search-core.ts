import type { Db } from '../storage/database.js';
import type { RankedChunk } from '../text/bm25-index.js';
import type { TextIndex } from '../text/text-index.js';
import { FtsRows } from '../text/fts-rows.js';
import type { VectorReader } from './vector-reader.js';
import { EngagementStore } from '../documents/engagement-store.js';
import { SearchRows, type FullRow, type HeavyRow, type LightRow, type VectorRow } from '../access/search-rows.js';
import type { TextMatch } from './fts-query.js';
import { AllowedSets, type FilterPlanner } from './allowed-sets.js';
import { ReadableSets } from './readable-sets.js';
import type { FieldIndexReader } from '../field-indexes/field-indexes.js';
import { estimateMatches } from './filter-estimates.js';
import { plannedAmong, plannedSet } from './indexed-filters.js';
import { CandidateDocument } from './candidate-document.js';
import { PublicRows } from './public-rows.js';
import { boundingBox } from './geo.js';
import type { Hit, LoadedDocument } from './hit.js';
import { acceptInScope, pointOfDocument, type GeoFilter, type Scope } from './scope.js';
import { textHits } from './text-hits.js';

/**
 * What every search kind's ranking shares: candidate loading under the access rule and grouping chunk hits by
 * document; the scope's restrictions are in scope.ts, the text candidate window in text-hits.ts, the answer's
 * shape in result-view.ts (finished by searches.ts, the entry points), and every SQL statement in the stores
 * (access/search-rows.ts, text/fts-rows.ts). The access rule is applied in
 * SQL on every candidate, so no search can return a document the caller cannot GET.
 */
export class SearchCore {
  readonly db: Db;
  readonly text: TextIndex;
  readonly vectors: VectorReader;
  /** Every SQL statement of searches on documents, chunks and vectors (the access rule applied in SQL). */
  readonly rows: SearchRows;
  /** Every SQL statement of searches on the FTS5 tables. */
  readonly fts: FtsRows;
  readonly #public: PublicRows<LightRow>;
  /** The documents recent filters let through, for filtered vector search. */
  readonly allowed: AllowedSets;
  /** The documents a viewer may read, from the access rule's indexes, when they are few. */
  readonly readable: ReadableSets;
  readonly engagement: EngagementStore;
  readonly #planner: FilterPlanner | undefined;
  readonly #fieldIndexes: FieldIndexReader | undefined;

  constructor(db: Db, text: TextIndex, vectors: VectorReader, fieldIndexes?: FieldIndexReader) {
    this.db = db;
    this.rows = new SearchRows(db);
    this.fts = new FtsRows(db);
    this.#public = new PublicRows(this.rows);
    this.engagement = new EngagementStore(db);
    this.#fieldIndexes = fieldIndexes;
    this.#planner = fieldIndexes && {
      set: (tenant, table, filters) => plannedSet(fieldIndexes, tenant, table, filters),
      estimate: (tenant, table, filters, cap) => estimateMatches(fieldIndexes, tenant, table, filters, cap),
      among: (tenant, table, filters, docs) => plannedAmong(fieldIndexes, tenant, table, filters, docs),
    };
    this.allowed = new AllowedSets(
      this.rows,
      (tenant, table, after, through) => this.#filterable(tenant, table, after, through),
      this.#planner,
    );
    this.readable = new ReadableSets(this.rows);
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

  /**
   * The documents of the scope's collection its filters let through, from the collection's field indexes: undefined
   * when a condition is not on a ready index, or (with `below`) when the indexes count that many or more. The
   * access rule is not applied (see pageAmong, countAmong).
   */
  indexedDocs(scope: Scope, below = Infinity): ReadonlySet<number> | undefined {
    const planner = this.#planner;
    if (!planner || scope.table === undefined || !scope.filters) return undefined;
    const tenant = scope.viewer.tenantId;
    if (below !== Infinity) {
      const estimate = planner.estimate(tenant, scope.table, scope.filters, below);
      if (!estimate || estimate.high >= below) return undefined;
    }
    return planner.set(tenant, scope.table, scope.filters);
  }

  /**
   * The keys a ready index of the scope's collection holds for `path` in each of documents `seqs` (each distinct,
   * as a facet shows it: numbers as their text, bools as true or false); undefined without a ready index on it.
   */
  indexedKeys(scope: Scope, path: string, seqs: readonly number[]): Map<number, string[]> | undefined {
    const reader = this.#fieldIndexes;
    if (!reader || scope.table === undefined) return undefined;
    const index = reader.ready(scope.viewer.tenantId, scope.table).get(path);
    if (!index || index.kind === 'geo') return undefined;
    const shown = (key: string | number) =>
      index.kind === 'bool' ? (key === 1 ? 'true' : 'false') : typeof key === 'number' ? String(key) : key;
    const out = new Map<number, string[]>();
    for (const [seq, keys] of reader.valuesOf(seqs, path).keys) out.set(seq, [...new Set(keys.map(shown))]);
    return out;
  }

  /** Live documents the viewer may read among `seqs`, in id order after `afterId`, at most `limit` (as `page`). */
  pageAmong(scope: Scope, seqs: readonly number[], afterId: string | null, limit: number): LoadedDocument[] {
    const rows = this.rows.readablePageAmong(scope, seqs, afterId, limit);
    return rows.map(
      (row) => new CandidateDocument(row[0], this.#readRow, row.slice(0, 12) as LightRow, row.slice(12) as HeavyRow),
    );
  }

  /** How many of `seqs` are live documents the viewer may read in the scope's table. */
  countAmong(scope: Scope, seqs: readonly number[]): number {
    let count = 0;
    for (let i = 0; i < seqs.length; i += 10_000)
      count += this.rows.countReadableAmong(scope, seqs.slice(i, i + 10_000));
    return count;
  }

  /** Live documents the viewer may read in the scope's table (no filters), counted in SQL. */
  countReadable(scope: Scope): number {
    return this.rows.countReadable(scope);
  }

  /** Applies filters and the geo restriction; answers the distance (km) when there is a geo restriction. */
  accept(doc: LoadedDocument, scope: Scope): { ok: boolean; distance?: number } {
    return acceptInScope(doc, scope);
  }

  pointOf(doc: LoadedDocument, field: string): [number, number] | undefined {
    return pointOfDocument(doc, field);
  }

  /** Documents located within a radius, via the R*Tree then the exact distance. */
  nearby(scope: Scope & { geo: GeoFilter }): number[] {
    const box = boundingBox(scope.geo.lat, scope.geo.lon, scope.geo.radiusKm);
    return this.rows.seqsInBox(scope.viewer.tenantId, box);
  }

  /** Full-text hits ranked by BM25, grouped by document (text-hits.ts). */
  textHits(scope: Scope, match: TextMatch, options: Parameters<typeof textHits>[3] = {}): Hit[] {
    return textHits(this, scope, match, options);
  }

  /**
   * Groups chunk hits by document (its score its own when it was ranked as a whole, else its best chunk's),
   * loading and filtering the documents.
   */
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
          score: h.docScore ?? h.score,
          chunks: [],
          ...(accepted.distance !== undefined && { distance: accepted.distance }),
        };
        hits.set(h.doc, hit);
      }
      // A document ranked as a whole carries its score on each chunk (see RankedChunk.docScore).
      hit.score = Math.max(hit.score, h.docScore ?? h.score);
      hit.chunks.push({ seq: h.chunk, score: h.score });
    }
    return [...hits.values()].sort((a, b) => b.score - a.score);
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
