import { unixSeconds, type Clock } from '../clock.js';
import type { Db } from '../storage/database.js';
import { transaction } from '../storage/transaction.js';
import { sphericalKMeans } from '../vectors/kmeans.js';
import { MaintenanceRows } from './maintenance-rows.js';
import type { VectorIndexes } from '../vectors/vector-index.js';
import type { TextIndex } from '../text/text-index.js';

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
  readonly #rows: MaintenanceRows;
  readonly #vectors: VectorIndexes;
  readonly #clock: Clock;

  readonly #text: TextIndex;

  constructor(db: Db, vectors: VectorIndexes, text: TextIndex, clock: Clock) {
    this.#db = db;
    this.#rows = new MaintenanceRows(db);
    this.#text = text;
    this.#vectors = vectors;
    this.#clock = clock;
  }

  stats(tenantId: string): TenantStats {
    const docs = this.#rows.documentCounts(tenantId);
    const vectors = this.#rows.vectorCounts(tenantId);
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
    return this.#rows.models(tenantId);
  }

  /**
   * Rebuilds the tenant's derived indexes from the stored documents: text (FTS5 rows of live chunks only, then
   * merged), geo (R*Tree) and one vector index per model.
   */
  refresh(tenantId: string): { documents: number; vectors: number } {
    const documents = transaction(this.#db, [this.#text], () => {
      this.#text.clear(tenantId);
      for (const row of this.#rows.liveChunks(tenantId))
        this.#text.insert(tenantId, row.seq, row.doc, row.title, row.content, row.public === 1, row.lang);
      this.#rows.refillGeo(tenantId);
      this.#rows.markIndexed(tenantId, unixSeconds(this.#clock));
      return this.#rows.liveDocuments(tenantId);
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
      this.#rows.setClusters(tenantId, new Map());
      return { clusters: 0, vectors: 0 };
    }
    const rows = this.#rows.modelVectors(tenantId, main.model);
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
    this.#db.transaction(() =>
      this.#rows.setClusters(tenantId, new Map(seqs.map((seq, i) => [seq, assignments[i]!]))),
    )();
    return { clusters: new Set(assignments).size, vectors: rows.length };
  }
}
