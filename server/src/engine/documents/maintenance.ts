import { unixSeconds, type Clock } from '../clock.js';
import type { Db } from '../storage/database.js';
import { transaction } from '../storage/transaction.js';
import { sphericalKMeans } from './kmeans.js';
import type { VectorIndexes } from './vector-index.js';
import type { TextIndex } from '../text/text-index.js';

const alive = 'd.deleted_at IS NULL AND d.superseded = 0';

export interface TenantStats {
  readonly DocumentCount: number;
  readonly VectorCount: number;
  readonly GeoCount: number;
  readonly ClusterCount: number;
  readonly AvgVectorDim: number;
}

/** Statistics and index maintenance of one tenant. */
export class Maintenance {
  readonly #db: Db;
  readonly #vectors: VectorIndexes;
  readonly #clock: Clock;

  readonly #text: TextIndex;

  constructor(db: Db, vectors: VectorIndexes, text: TextIndex, clock: Clock) {
    this.#db = db;
    this.#text = text;
    this.#vectors = vectors;
    this.#clock = clock;
  }

  stats(tenantId: string): TenantStats {
    const docs = this.#db
      .prepare(
        `SELECT count(*) AS documents, count(d.lat) AS geo, count(DISTINCT d.cluster) AS clusters FROM documents d WHERE d.tenant_id = ? AND ${alive}`,
      )
      .get(tenantId) as { documents: number; geo: number; clusters: number };
    const vectors = this.#db
      .prepare(
        `SELECT count(*) AS vectors, coalesce(avg(length(c.vector) / 4.0), 0) AS dims FROM chunks c JOIN documents d ON d.seq = c.doc_seq WHERE c.tenant_id = ? AND c.vector IS NOT NULL AND ${alive}`,
      )
      .get(tenantId) as { vectors: number; dims: number };
    return {
      DocumentCount: docs.documents,
      VectorCount: vectors.vectors,
      GeoCount: docs.geo,
      ClusterCount: docs.clusters,
      AvgVectorDim: Math.round(vectors.dims * 100) / 100,
    };
  }

  /** The embedding models a tenant's vectors use, with their counts and dimensions. */
  models(tenantId: string): { model: string; count: number; dims: number }[] {
    return this.#db
      .prepare(
        `SELECT c.model AS model, count(*) AS count, max(length(c.vector)) / 4 AS dims FROM chunks c JOIN documents d ON d.seq = c.doc_seq WHERE c.tenant_id = ? AND c.vector IS NOT NULL AND ${alive} GROUP BY c.model ORDER BY count DESC`,
      )
      .all(tenantId) as { model: string; count: number; dims: number }[];
  }

  /**
   * Rebuilds the tenant's derived indexes from the stored documents: text (FTS5 rows of live chunks only, then
   * merged), geo (R*Tree) and one vector index per model.
   */
  refresh(tenantId: string): { documents: number; vectors: number } {
    const documents = transaction(this.#db, [this.#text], () => {
      this.#text.clear(tenantId);
      const rows = this.#db
        .prepare(
          `SELECT c.seq, c.doc_seq AS doc, d.title, c.content, d.visibility = 'public' AS public FROM chunks c JOIN documents d ON d.seq = c.doc_seq WHERE c.tenant_id = ? AND ${alive}`,
        )
        .all(tenantId) as { seq: number; doc: number; title: string; content: string; public: number }[];
      for (const row of rows) this.#text.insert(tenantId, row.seq, row.doc, row.title, row.content, row.public === 1);
      this.#db
        .prepare('DELETE FROM geo_rtree WHERE doc_seq IN (SELECT seq FROM documents WHERE tenant_id = ?)')
        .run(tenantId);
      this.#db
        .prepare(
          `INSERT INTO geo_rtree (doc_seq, min_lat, max_lat, min_lon, max_lon) SELECT d.seq, d.lat, d.lat, d.lon, d.lon FROM documents d WHERE d.tenant_id = ? AND d.lat IS NOT NULL AND ${alive}`,
        )
        .run(tenantId);
      this.#db
        .prepare('UPDATE documents SET indexed_at = ? WHERE tenant_id = ?')
        .run(unixSeconds(this.#clock), tenantId);
      return this.#db
        .prepare(`SELECT count(*) FROM documents d WHERE d.tenant_id = ? AND ${alive}`)
        .pluck()
        .get(tenantId) as number;
    });
    this.#text.optimize(tenantId);
    let vectors = 0;
    for (const { model, dims } of this.models(tenantId)) vectors += this.#vectors.rebuild(tenantId, model, dims);
    return { documents, vectors };
  }

  /**
   * k-means over the documents' vectors (the mean of each document's chunk vectors) of the tenant's main model,
   * k = round(√(n / 2)) between 1 and 64; stores each document's cluster.
   */
  recluster(tenantId: string): { clusters: number; vectors: number } {
    const main = this.models(tenantId)[0];
    if (!main) {
      this.#db.prepare('UPDATE documents SET cluster = NULL WHERE tenant_id = ?').run(tenantId);
      return { clusters: 0, vectors: 0 };
    }
    const rows = this.#db
      .prepare(
        `SELECT c.doc_seq AS seq, c.vector AS vector FROM chunks c JOIN documents d ON d.seq = c.doc_seq WHERE c.tenant_id = ? AND c.model = ? AND c.vector IS NOT NULL AND ${alive} ORDER BY c.doc_seq`,
      )
      .all(tenantId, main.model) as { seq: number; vector: Buffer }[];
    const bySeq = new Map<number, Float32Array>();
    for (const row of rows) {
      const v = new Float32Array(row.vector.buffer, row.vector.byteOffset, main.dims);
      const sum = bySeq.get(row.seq) ?? new Float32Array(main.dims);
      for (let d = 0; d < main.dims; d += 1) sum[d]! += v[d]!;
      bySeq.set(row.seq, sum);
    }
    const seqs = [...bySeq.keys()];
    const vectors = seqs.map((s) => {
      const v = bySeq.get(s)!;
      const n = Math.hypot(...v) || 1;
      return v.map((x) => x / n);
    });
    const k = Math.max(1, Math.min(64, Math.round(Math.sqrt(vectors.length / 2))));
    const { assignments } = sphericalKMeans(vectors, k, { seed: 42 });
    this.#db.transaction(() => {
      this.#db.prepare('UPDATE documents SET cluster = NULL WHERE tenant_id = ?').run(tenantId);
      const set = this.#db.prepare('UPDATE documents SET cluster = ? WHERE seq = ?');
      seqs.forEach((seq, i) => set.run(assignments[i]!, seq));
    })();
    return { clusters: new Set(assignments).size, vectors: rows.length };
  }
}
