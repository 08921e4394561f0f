import type { AnalysisSettings, Collection, FieldIndexDeclarations, VectorSettings } from '@godb/contract';
import { principalsOf } from '../access/access.js';
import { alive, readableSql } from '../access/search-rows.js';
import type { Viewer } from '../access/viewer.js';
import type { Db } from '../storage/database.js';
import { StatementCache } from '../storage/statement-cache.js';

type CollectionRow = {
  name: string;
  description: string;
  vectors: string;
  default_vector: string | null;
  implicit: number;
  indexes: string;
  analysis: string;
  sparse_vectors: string;
  created_at: number;
  updated_at: number;
};

const toCollection = (row: CollectionRow): Collection => ({
  name: row.name,
  description: row.description,
  vectors: JSON.parse(row.vectors) as Record<string, VectorSettings>,
  ...(row.default_vector !== null && { default_vector: row.default_vector }),
  implicit: row.implicit === 1,
  ...(row.indexes !== '{}' && { indexes: JSON.parse(row.indexes) as FieldIndexDeclarations }),
  ...(row.analysis !== '{}' && { analysis: JSON.parse(row.analysis) as AnalysisSettings }),
  ...(row.sparse_vectors !== '{}' && { sparse_vectors: JSON.parse(row.sparse_vectors) as Record<string, object> }),
  created_at: row.created_at,
  updated_at: row.updated_at,
});

/**
 * Every SQL statement of collections (issue #21, stores own SQL): their rows, and the counts a collection shows
 * (its documents the viewer may read under the access rule, their chunks, the live vectors of each vector).
 * Statements are prepared once per text.
 */
export class CollectionRows {
  readonly #db: Db;
  readonly #sql: StatementCache;
  /** Collection rows written or removed through this object (Collections.holding keeps reads while it stays). */
  #writes = 0;

  constructor(db: Db) {
    this.#db = db;
    this.#sql = new StatementCache(db);
  }

  get(tenantId: string, name: string): Collection | undefined {
    const row = this.#sql.get('SELECT * FROM collections WHERE tenant_id = ? AND name = ?').get(tenantId, name) as
      CollectionRow | undefined;
    return row && toCollection(row);
  }

  /** The tenant's collections by name. */
  list(tenantId: string): Collection[] {
    return (
      this.#sql.get('SELECT * FROM collections WHERE tenant_id = ? ORDER BY name').all(tenantId) as CollectionRow[]
    ).map(toCollection);
  }

  /** Inserts the collection, or updates its description, vectors, default vector, field indexes, analysis and update time. */
  write(tenantId: string, c: Collection): void {
    this.#writes += 1;
    this.#sql
      .get(
        `INSERT INTO collections (tenant_id, name, description, vectors, default_vector, implicit, indexes, analysis, sparse_vectors, created_at, updated_at)
         VALUES (@tenant, @name, @description, @vectors, @default, @implicit, @indexes, @analysis, @sparse, @created, @updated)
         ON CONFLICT (tenant_id, name) DO UPDATE SET description = @description, vectors = @vectors,
           default_vector = @default, indexes = @indexes, analysis = @analysis, updated_at = @updated`,
      )
      .run({
        tenant: tenantId,
        name: c.name,
        description: c.description,
        vectors: JSON.stringify(c.vectors),
        default: c.default_vector ?? null,
        implicit: c.implicit ? 1 : 0,
        indexes: JSON.stringify(c.indexes ?? {}),
        analysis: JSON.stringify(c.analysis ?? {}),
        sparse: JSON.stringify(c.sparse_vectors ?? {}),
        created: c.created_at,
        updated: c.updated_at,
      });
  }

  remove(tenantId: string, name: string): void {
    this.#writes += 1;
    this.#sql.get('DELETE FROM collections WHERE tenant_id = ? AND name = ?').run(tenantId, name);
  }

  /** How many collection rows were written or removed through this object (see Collections.holding). */
  get writes(): number {
    return this.#writes;
  }

  /**
   * SQLite's total_changes() of the one connection every write goes through: it moves with any row written (by a
   * trigger too), and does not go back on a rollback.
   */
  changes(): number {
    return this.#sql.get('SELECT total_changes()').pluck().get() as number;
  }

  /** Whether a write transaction is open (what is read inside it may be rolled back). */
  get inTransaction(): boolean {
    return this.#db.inTransaction;
  }

  /** When the first grant the viewer holds on the collection's documents expires (seconds), or null. */
  soonestExpiry(viewer: Viewer, collection: string, now: number): number | null {
    return this.#sql
      .get(
        `SELECT min(a.expires_at) FROM document_access a JOIN documents d ON d.seq = a.doc_seq
         WHERE d.tenant_id = ? AND d.primary_table = ? AND a.expires_at > ?
           AND a.principal IN (SELECT value FROM json_each(?))`,
      )
      .pluck()
      .get(viewer.tenantId, collection, now, principalsOf(viewer)) as number | null;
  }

  /** Live documents of the collection the viewer may read (the access rule at `now`), and their chunks. */
  readableCounts(viewer: Viewer, collection: string, now: number): { documents: number; chunks: number } {
    return this.#sql
      .get(
        `SELECT count(*) AS documents, coalesce(sum((SELECT count(*) FROM chunks c WHERE c.doc_seq = d.seq)), 0) AS chunks
         FROM documents d WHERE d.tenant_id = @tenant AND d.primary_table = @table AND ${alive} AND ${readableSql}`,
      )
      .get({ tenant: viewer.tenantId, table: collection, principals: principalsOf(viewer), now }) as {
      documents: number;
      chunks: number;
    };
  }

  /** Chunks of the collection's live documents embedded by `model`. */
  modelVectorCount(tenantId: string, collection: string, model: string): number {
    return this.#sql
      .get(
        `SELECT count(*) FROM chunks c JOIN documents d ON d.seq = c.doc_seq
         WHERE d.tenant_id = ? AND d.primary_table = ? AND c.model = ? AND c.vector IS NOT NULL AND ${alive}`,
      )
      .pluck()
      .get(tenantId, collection, model) as number;
  }

  /** Live documents' vectors of the collection's own vector `name` (given by clients). */
  clientVectorCount(tenantId: string, collection: string, name: string): number {
    return this.#sql
      .get(
        `SELECT count(*) FROM document_vectors v JOIN documents d ON d.seq = v.doc_seq
         WHERE v.tenant_id = ? AND v.collection = ? AND v.name = ? AND ${alive}`,
      )
      .pluck()
      .get(tenantId, collection, name) as number;
  }
}
