import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Db } from '../storage/database.js';
import type { Bm25Index } from './bm25-index.js';
import type { Bm25Saved } from './bm25-state.js';
import { readBm25File, writeBm25File } from './bm25-file.js';
import { TextCheckpointRows, type TextCheckpointRow } from './text-checkpoint-rows.js';

/**
 * The BM25 indexes' checkpoint files (`<data>/text/<tenant>.bm25`, see bm25-file.ts) and the store's record of them
 * (`text_checkpoints`). A file is derived data: it is read back only when the store's row for its tenant names it
 * (its id is in its header), and the row goes in the same transaction as anything that rewrites the tenant's rows
 * with seqs they had before (a text rebuild, a tenant restore). Every other change — chunks added after the file's
 * `through`, removed, or moved between public and hidden — is found by comparing the file with the stored rows when
 * it is read back (Bm25Indexes), so a file of any age is correct to start from.
 */
export class Bm25Checkpoints {
  readonly #dir: string;
  readonly #rows: TextCheckpointRows;

  constructor(db: Db, dir: string) {
    this.#dir = dir;
    this.#rows = new TextCheckpointRows(db);
    // Temporary files of saves a crash or a stop interrupted.
    if (existsSync(dir))
      for (const name of readdirSync(dir)) if (/\.bm25\.tmp-/.test(name)) rmSync(join(dir, name), { force: true });
    // Rows whose file is gone (a whole-node restore or a cluster catch-up replaces the folder, not the rows): those
    // tenants are built from the store, as if never saved, rather than counted as unreadable checkpoints.
    for (const { tenantId } of this.#rows.saved()) if (!existsSync(this.#path(tenantId))) this.#rows.delete(tenantId);
  }

  #path(tenantId: string): string {
    return join(this.#dir, `${encodeURIComponent(tenantId)}.bm25`);
  }

  /** The tenant's recorded checkpoint, if any. */
  row(tenantId: string): TextCheckpointRow | undefined {
    return this.#rows.get(tenantId);
  }

  /** Tenants with a recorded checkpoint, the most recently saved first, with the size of their files. */
  saved(): { tenantId: string; bytes: number }[] {
    return this.#rows.saved();
  }

  /**
   * Reads the tenant's checkpoint back: its state when the file is whole and the one the store's `row` names;
   * otherwise undefined (build from the store).
   */
  async read(
    tenantId: string,
    row: TextCheckpointRow,
    weights: { readonly title: number; readonly content: number },
  ): Promise<Bm25Saved | undefined> {
    const file = await readBm25File(this.#path(tenantId));
    if (!file || file.header.fileId !== row.fileId || file.header.tenantId !== tenantId) return undefined;
    // Frequencies are stored weighted: a file of other column weights would score otherwise.
    if (file.header.weights.title !== weights.title || file.header.weights.content !== weights.content)
      return undefined;
    return file.state;
  }

  /**
   * Saves an index: its state is captured now, written in the background, then recorded — unless `stillValid` says
   * otherwise by then (the tenant's text was rebuilt meanwhile). Answers the bytes written, or 0 when not recorded.
   */
  async save(tenantId: string, index: Bm25Index, stillValid: () => boolean, now: () => number): Promise<number> {
    const { state, release } = index.capture();
    const fileId = randomUUID();
    let bytes: number;
    try {
      mkdirSync(this.#dir, { recursive: true });
      bytes = await writeBm25File(this.#path(tenantId), state, { fileId, tenantId });
    } finally {
      release();
    }
    if (!stillValid()) return 0;
    this.#rows.record(tenantId, { fileId, through: state.through, bytes, savedAt: now() });
    return bytes;
  }

  /**
   * Forgets the tenant's checkpoint: its row (inside the caller's transaction, when there is one) and its file. Call
   * when the tenant's rows are rewritten with seqs they had before.
   */
  forget(tenantId: string): void {
    this.#rows.delete(tenantId);
    try {
      rmSync(this.#path(tenantId), { force: true });
    } catch {
      // The row is what counts (a file no row names is never read): a file that cannot be removed must not undo
      // the rewrite whose transaction this runs in.
    }
  }
}
