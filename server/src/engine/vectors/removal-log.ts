import type { Db } from '../storage/database.js';
import { StatementCache } from '../storage/statement-cache.js';

/**
 * The changed-rows log of the vector indexes: the keys each write transaction took out of a space (deleted,
 * replaced or purged documents), by generation. Insertions need no log: vector seqs only grow, so the vectors
 * added after a checkpoint are the live ones beyond its `through`. A checkpoint at generation G makes the log's
 * entries up to G useless, so they are pruned, and `logged_from` (in `vector_generations`) records from which
 * generation on the log is complete: a file of an older generation cannot be replayed and is rebuilt.
 */
export class RemovalLog {
  readonly #db: Db;
  readonly #sql: StatementCache;

  constructor(db: Db) {
    this.#db = db;
    this.#sql = new StatementCache(db);
  }

  /** Records the keys a write took out of a space at `generation`. Call inside the write transaction. */
  record(tenantId: string, space: string, generation: number, keys: readonly number[]): void {
    if (keys.length === 0) return;
    this.#sql
      .get('INSERT INTO vector_removals (tenant_id, space, generation, keys) VALUES (?, ?, ?, ?)')
      .run(tenantId, space, generation, Buffer.from(Float64Array.from(keys).buffer));
  }

  /** Whether every removal after `generation` is in the log (so a file of that generation can be replayed). */
  covers(tenantId: string, space: string, generation: number): boolean {
    const from = this.#sql
      .get('SELECT logged_from FROM vector_generations WHERE tenant_id = ? AND model = ?')
      .pluck()
      .get(tenantId, space) as number | undefined;
    return generation >= (from ?? 0);
  }

  /** The keys taken out of a space after `generation`. */
  since(tenantId: string, space: string, generation: number): number[] {
    const rows = this.#sql
      .get('SELECT keys FROM vector_removals WHERE tenant_id = ? AND space = ? AND generation > ?')
      .pluck()
      .all(tenantId, space, generation) as Buffer[];
    return rows.flatMap((b) => [...new Float64Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength))]);
  }

  /** Forgets the entries a durable checkpoint at `generation` holds. */
  prune(tenantId: string, space: string, generation: number): void {
    this.#db.transaction(() => {
      this.#sql
        .get('DELETE FROM vector_removals WHERE tenant_id = ? AND space = ? AND generation <= ?')
        .run(tenantId, space, generation);
      this.#sql
        .get('UPDATE vector_generations SET logged_from = max(logged_from, ?) WHERE tenant_id = ? AND model = ?')
        .run(generation, tenantId, space);
    })();
  }

  /**
   * Forgets a tenant's log after its rows were replaced (a tenant restore): the log is complete from the
   * restored generation on, so an index file of an older one is rebuilt rather than replayed.
   */
  forgetTenant(tenantId: string): void {
    this.#db.transaction(() => {
      this.#sql.get('DELETE FROM vector_removals WHERE tenant_id = ?').run(tenantId);
      this.#sql.get('UPDATE vector_generations SET logged_from = generation WHERE tenant_id = ?').run(tenantId);
    })();
  }

  /** Forgets a space entirely (its collection or vector is gone). */
  drop(tenantId: string, space: string): void {
    this.#sql.get('DELETE FROM vector_removals WHERE tenant_id = ? AND space = ?').run(tenantId, space);
  }
}
