import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The `internal` storage provider: uploaded file bytes (`file_content`, base64) kept under DATA_DIR/files, one
 * file per document version. Paths are built from encoded ids, never from raw client input.
 */
export class FileStore {
  readonly #root: string | null;

  constructor(root: string | null) {
    this.#root = root;
  }

  /** Writes the bytes and returns the stored path relative to the store, or undefined in memory-only mode. */
  put(tenantId: string, docId: string, version: number, base64: string): string | undefined {
    if (!this.#root) return undefined;
    const relative = join(encodeURIComponent(tenantId), encodeURIComponent(docId), `v${version}`);
    const target = join(this.#root, relative);
    mkdirSync(join(target, '..'), { recursive: true });
    writeFileSync(target, Buffer.from(base64, 'base64'));
    return relative;
  }

  /** Removes every stored version of a document. */
  removeAll(tenantId: string, docId: string): void {
    if (!this.#root) return;
    rmSync(join(this.#root, encodeURIComponent(tenantId), encodeURIComponent(docId)), { recursive: true, force: true });
  }
}
