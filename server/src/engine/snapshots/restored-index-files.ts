import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';

/** The folder of a tenant's vector index files in a data folder (the node's, or an unpacked snapshot's). */
const indexDirOf = (dataDir: string, tenantId: string): string =>
  join(dataDir, 'vectors', encodeURIComponent(tenantId));

/**
 * Removes the node's index files of a tenant whose rows a restore replaces: they describe rows that go, so no
 * warm-up may load or build from them.
 *
 * @example dropIndexFiles(dataDir, tenantId);
 */
export function dropIndexFiles(dataDir: string, tenantId: string): void {
  rmSync(indexDirOf(dataDir, tenantId), { recursive: true, force: true });
}

/**
 * Moves the unpacked snapshot's index files of a tenant (if it holds any) into the node's place for them. Only for
 * rows restored with their seqs kept (the files' keys are seqs) from a snapshot whose files may be trusted; otherwise
 * the indexes are rebuilt from the rows.
 *
 * @example if (preserved && restore.trustIndexFiles) adoptIndexFiles(restore.dir, dataDir, tenant);
 */
export function adoptIndexFiles(snapshotDir: string, dataDir: string, tenantId: string): void {
  const source = indexDirOf(snapshotDir, tenantId);
  if (!existsSync(source)) return;
  mkdirSync(join(dataDir, 'vectors'), { recursive: true });
  renameSync(source, indexDirOf(dataDir, tenantId));
}
