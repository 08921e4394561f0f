import type { Db } from '../storage/database.js';
import { StatementCache } from '../storage/statement-cache.js';
import { alive } from '../access/search-rows.js';

/** A tenant's counts of live documents, of those with a position, and of distinct clusters. */
export interface DocumentCounts {
  readonly documents: number;
  readonly geo: number;
  readonly clusters: number;
}

/** A live chunk's text as the text index holds it. */
export interface ChunkForText {
  readonly seq: number;
  readonly doc: number;
  readonly title: string;
  readonly content: string;
  /** 1 when its document is public. */
  readonly public: number;
  /** Its document's lang_code (the language its text is analysed in). */
  readonly lang: string | null;
}

/**
 * The store's side of a tenant's statistics and index maintenance (Maintenance): counts, the live chunks and
 * vectors a rebuild or a clustering reads, and the rows they write (geo R*Tree, `indexed_at`, `cluster`).
 * Statements are prepared once per SQL text (StatementCache).
 *
 * @example const rows = new MaintenanceRows(db); rows.documentCounts('t1'); // { documents: 3, geo: 1, clusters: 2 }
 */
export class MaintenanceRows {
  readonly #sql: StatementCache;

  constructor(db: Db) {
    this.#sql = new StatementCache(db);
  }

  documentCounts(tenantId: string): DocumentCounts {
    return this.#sql
      .get(
        `SELECT count(*) AS documents, count(d.lat) AS geo, count(DISTINCT d.cluster) AS clusters FROM documents d WHERE d.tenant_id = ? AND ${alive}`,
      )
      .get(tenantId) as DocumentCounts;
  }

  /** The live chunk vectors of a tenant and their mean dimension. */
  vectorCounts(tenantId: string): { vectors: number; dims: number } {
    return this.#sql
      .get(
        `SELECT count(*) AS vectors, coalesce(avg(length(c.vector) / 4.0), 0) AS dims FROM chunks c JOIN documents d ON d.seq = c.doc_seq WHERE c.tenant_id = ? AND c.vector IS NOT NULL AND ${alive}`,
      )
      .get(tenantId) as { vectors: number; dims: number };
  }

  /** The embedding models of a tenant's live chunk vectors, with their counts and dimensions, most used first. */
  models(tenantId: string): { model: string; count: number; dims: number }[] {
    return this.#sql
      .get(
        `SELECT c.model AS model, count(*) AS count, max(length(c.vector)) / 4 AS dims FROM chunks c JOIN documents d ON d.seq = c.doc_seq WHERE c.tenant_id = ? AND c.vector IS NOT NULL AND ${alive} GROUP BY c.model ORDER BY count DESC`,
      )
      .all(tenantId) as { model: string; count: number; dims: number }[];
  }

  /** Every live chunk of a tenant, with its document's title and visibility. */
  liveChunks(tenantId: string): ChunkForText[] {
    return this.#sql
      .get(
        `SELECT c.seq, c.doc_seq AS doc, d.title, c.content, d.visibility = 'public' AS public, json_extract(d.fields, '$.lang_code') AS lang FROM chunks c JOIN documents d ON d.seq = c.doc_seq WHERE c.tenant_id = ? AND ${alive}`,
      )
      .all(tenantId) as ChunkForText[];
  }

  /** Fills the geo R*Tree of a tenant again from its live documents' positions. */
  refillGeo(tenantId: string): void {
    this.#sql
      .get('DELETE FROM geo_rtree WHERE doc_seq IN (SELECT seq FROM documents WHERE tenant_id = ?)')
      .run(tenantId);
    this.#sql
      .get(
        `INSERT INTO geo_rtree (doc_seq, min_lat, max_lat, min_lon, max_lon) SELECT d.seq, d.lat, d.lat, d.lon, d.lon FROM documents d WHERE d.tenant_id = ? AND d.lat IS NOT NULL AND ${alive}`,
      )
      .run(tenantId);
  }

  /** Marks every document of a tenant indexed at `now` (unix seconds). */
  markIndexed(tenantId: string, now: number): void {
    this.#sql.get('UPDATE documents SET indexed_at = ? WHERE tenant_id = ?').run(now, tenantId);
  }

  /** How many live documents a tenant holds. */
  liveDocuments(tenantId: string): number {
    return this.#sql
      .get(`SELECT count(*) FROM documents d WHERE d.tenant_id = ? AND ${alive}`)
      .pluck()
      .get(tenantId) as number;
  }

  /** The live chunk vectors of a tenant's model, by document seq. */
  modelVectors(tenantId: string, model: string): { seq: number; vector: Buffer }[] {
    return this.#sql
      .get(
        `SELECT c.doc_seq AS seq, c.vector AS vector FROM chunks c JOIN documents d ON d.seq = c.doc_seq WHERE c.tenant_id = ? AND c.model = ? AND c.vector IS NOT NULL AND ${alive} ORDER BY c.doc_seq`,
      )
      .all(tenantId, model) as { seq: number; vector: Buffer }[];
  }

  /** Sets the documents' clusters: none for the rest of the tenant (inside the caller's transaction). */
  setClusters(tenantId: string, clusters: ReadonlyMap<number, number>): void {
    this.#sql.get('UPDATE documents SET cluster = NULL WHERE tenant_id = ?').run(tenantId);
    const set = this.#sql.get('UPDATE documents SET cluster = ? WHERE seq = ?');
    for (const [seq, cluster] of clusters) set.run(cluster, seq);
  }
}
