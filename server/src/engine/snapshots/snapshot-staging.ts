import Database from 'better-sqlite3';
import { createError } from '@godb/contract';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Readable } from 'node:stream';
import { migrate, type Db } from '../storage/database.js';
import { migrations } from '../storage/migrations.js';
import { syncFoldersUpTo, syncTree } from '../storage/durable-files.js';
import { checkTenantPaths, unpackSnapshot } from './restore.js';
import type { SnapshotManifest } from './snapshots.js';
import { firstNonTable, nodeHolds, tenantsOf } from './restore-rows.js';
import { tenantTables } from './tenant-rows.js';

/** Who restores: a tenant admin (its own tenant's snapshots only) or the super admin (any snapshot). */
export interface Restorer {
  /** The tenant admin's tenant; undefined for the super admin. */
  readonly tenantId: string | undefined;
  /** Tenants that are the node's own, not data (the super admin's): a node holding only these is empty. */
  readonly keepTenants: readonly string[];
  /** Whether the snapshot's HNSW files may be loaded (false for an archive a tenant admin uploaded). */
  readonly trustIndexFiles: boolean;
}

/** A snapshot unpacked and checked, waiting to be applied (or discarded). */
export interface StagedSnapshot {
  readonly manifest: SnapshotManifest;
  /** The folder it was unpacked into. */
  readonly dir: string;
  /** The tenants the restore replaces (a tenant snapshot: one). */
  readonly tenants: readonly string[];
  readonly keepTenants: readonly string[];
  readonly trustIndexFiles: boolean;
  /** Uploaded files it holds, for progress. */
  readonly files: number;
  discard(): void;
}

const currentVersion = migrations[migrations.length - 1]!.version;

/**
 * SNAPSHOT_NOT_RESTORABLE with the reason a snapshot cannot be restored here.
 *
 * @example throw notRestorable('it is a whole-node snapshot, which only the super admin restores');
 */
export const notRestorable = (reason: string) => createError('SNAPSHOT_NOT_RESTORABLE', { reason });

/**
 * Unpacks a snapshot archive into a fresh folder under `<dataDir>/snapshots` and checks it for `restorer`: every
 * checksum, the schema version, whose snapshot it is, and (a whole-node one) that the node is empty. Refused
 * (`SNAPSHOT_CORRUPT`, `SNAPSHOT_NOT_RESTORABLE`, `SNAPSHOT_NODE_NOT_EMPTY`) before anything of the node changes; the
 * folder is then removed.
 *
 * @example const staged = await stageSnapshot(archive, { tenantId, keepTenants: [], trustIndexFiles: false }, { db, dataDir });
 */
export async function stageSnapshot(
  archive: Readable,
  restorer: Restorer,
  node: { readonly db: Db; readonly dataDir: string },
): Promise<StagedSnapshot> {
  const dir = join(node.dataDir, 'snapshots', `.restore-${randomUUID()}`);
  mkdirSync(dir, { recursive: true });
  const discard = () => rmSync(dir, { recursive: true, force: true });
  try {
    const manifest = await unpackSnapshot(archive, dir);
    checkTenantPaths(manifest);
    const scope = manifest.scope ?? 'node';
    if (manifest.schema_version > currentVersion)
      throw notRestorable(
        `it was taken by a newer GoDB (schema ${manifest.schema_version}; this one has ${currentVersion})`,
      );
    const database = join(dir, scope === 'tenant' ? 'tenant.sqlite' : 'godb.sqlite');
    migrateFile(database);
    let tenants: string[];
    if (scope === 'tenant') {
      const tenant = manifest.tenant_id ?? '';
      if (restorer.tenantId !== undefined && restorer.tenantId !== tenant)
        throw notRestorable('it holds another tenant’s data; a tenant admin restores only its own tenant’s snapshots');
      requireTables(database);
      tenants = [tenant];
    } else {
      if (restorer.tenantId !== undefined)
        throw notRestorable('it is a whole-node snapshot, which only the super admin restores');
      requireEmpty(node.db, restorer.keepTenants);
      tenants = tenantsOf(database).filter((id) => !restorer.keepTenants.includes(id));
    }
    // A committed marker names this folder, and a restart resumes from it: on the disk before that.
    await syncTree(dir);
    await syncFoldersUpTo(dirname(dir), node.dataDir);
    return {
      manifest,
      dir,
      tenants,
      keepTenants: restorer.keepTenants,
      trustIndexFiles: restorer.trustIndexFiles,
      files: manifest.files.filter((f) => f.path.startsWith('files/')).length,
      discard,
    };
  } catch (error) {
    discard();
    throw error;
  }
}

/**
 * Refuses (SNAPSHOT_NODE_NOT_EMPTY) a whole-node restore into a node that holds any tenant or document of its own.
 *
 * @example requireEmpty(db, staged.keepTenants);
 */
export function requireEmpty(db: Db, keepTenants: readonly string[]): void {
  const { tenants, documents } = nodeHolds(db, keepTenants);
  if (tenants > 0 || documents > 0)
    throw createError('SNAPSHOT_NODE_NOT_EMPTY', { holds: `${tenants} tenants, ${documents} documents` });
}

/**
 * The database of an unpacked snapshot: `tenant.sqlite` (a tenant snapshot) or `godb.sqlite`; undefined when gone.
 *
 * @example if (stagedDatabase(dir) === undefined) throw interrupted('its unpacked snapshot is missing');
 */
export function stagedDatabase(dir: string): string | undefined {
  return ['tenant.sqlite', 'godb.sqlite'].map((name) => join(dir, name)).find((file) => existsSync(file));
}

/** A tenant database whose tables are tables (not views of a crafted upload) with the columns of ours. */
function requireTables(file: string): void {
  const table = firstNonTable(
    file,
    tenantTables.map(({ table }) => table),
  );
  if (table !== undefined) throw createError('SNAPSHOT_CORRUPT', { reason: `its ${table} is not a table` });
}

/** Brings a staged database to the current schema (a snapshot taken before later migrations). */
function migrateFile(file: string): void {
  const db = new Database(file);
  try {
    migrate(db);
  } finally {
    db.close();
  }
}
