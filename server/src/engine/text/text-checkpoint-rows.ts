import type { Db } from '../storage/database.js';
import { StatementCache } from '../storage/statement-cache.js';

/** A tenant's saved text checkpoint, as the store records it (`text_checkpoints`). */
export interface TextCheckpointRow {
  readonly fileId: string;
  readonly through: number;
  readonly bytes: number;
  readonly savedAt: number;
}

/**
 * The store's record of the BM25 checkpoint files (see Bm25Checkpoints): one row per tenant naming its current file.
 *
 * @example const rows = new TextCheckpointRows(db); rows.record(tenantId, { fileId, through: 42, bytes: 1024, savedAt: 0 });
 */
export class TextCheckpointRows {
  readonly #sql: StatementCache;

  constructor(db: Db) {
    this.#sql = new StatementCache(db);
  }

  /** The tenant's recorded checkpoint, if any. */
  get(tenantId: string): TextCheckpointRow | undefined {
    const row = this.#sql
      .get('SELECT file_id, through, bytes, saved_at FROM text_checkpoints WHERE tenant_id = ?')
      .get(tenantId) as { file_id: string; through: number; bytes: number; saved_at: number } | undefined;
    return row && { fileId: row.file_id, through: row.through, bytes: row.bytes, savedAt: row.saved_at };
  }

  /** Tenants with a recorded checkpoint, the most recently saved first, with the size of their files. */
  saved(): { tenantId: string; bytes: number }[] {
    return this.#sql.get('SELECT tenant_id AS tenantId, bytes FROM text_checkpoints ORDER BY saved_at DESC').all() as {
      tenantId: string;
      bytes: number;
    }[];
  }

  /** Records the tenant's newest checkpoint, replacing the one before. */
  record(tenantId: string, row: TextCheckpointRow): void {
    this.#sql
      .get(
        `INSERT INTO text_checkpoints (tenant_id, file_id, through, bytes, saved_at) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (tenant_id) DO UPDATE SET file_id = excluded.file_id, through = excluded.through,
           bytes = excluded.bytes, saved_at = excluded.saved_at`,
      )
      .run(tenantId, row.fileId, row.through, row.bytes, row.savedAt);
  }

  /** Forgets the tenant's checkpoint (inside the caller's transaction, when there is one). */
  delete(tenantId: string): void {
    this.#sql.get('DELETE FROM text_checkpoints WHERE tenant_id = ?').run(tenantId);
  }
}
