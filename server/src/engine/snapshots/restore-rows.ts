import Database from 'better-sqlite3';
import { FieldLists } from '../field-indexes/field-lists.js';
import { indexSparseRange, SparsePostings } from '../sparse/sparse-posting-rows.js';
import type { Db } from '../storage/database.js';
import type { Bounds } from './slices.js';
import { columnsOf } from './tenant-rows.js';

/**
 * The store's side of a restore into a running node (OnlineRestore): every SQL statement it runs on the node's store
 * (`main`) and on the snapshot attached beside it (`s`). Statements that run once per slice are prepared per call
 * (a slice is ~40 ms of work); those run per row are prepared once per call and reused across its rows.
 */

/** A tenant restore under way (migration 11): the unpacked snapshot it restores from, relative to the data folder. */
export interface TenantRestoreRow {
  readonly tenant_id: string;
  readonly snapshot_id: string;
  readonly dir: string;
  readonly trust_index_files: number;
}

/** The tables with a tenant column a restore replaces, in the order their rows are deleted (children first). */
export const tenantOwnTables = [
  'chunks',
  'document_vectors',
  'documents',
  'collections',
  'vector_generations',
  'engagement_events',
] as const;

/** The tables whose rows are numbered by seq (AUTOINCREMENT), which a restore keeps or shifts. */
export const seqTables = ['documents', 'chunks', 'document_vectors'] as const;
export type SeqTable = (typeof seqTables)[number];

/** The tenant restores under way, oldest first. */
export function restoreMarkers(db: Db): TenantRestoreRow[] {
  return db
    .prepare('SELECT tenant_id, snapshot_id, dir, trust_index_files FROM tenant_restores ORDER BY started_at')
    .all() as TenantRestoreRow[];
}

/** Whether a tenant restore under way restores from the unpacked snapshot `dir` (relative to the data folder). */
export function restoresFrom(db: Db, dir: string): boolean {
  return db.prepare('SELECT 1 FROM tenant_restores WHERE dir = ? LIMIT 1').get(dir) !== undefined;
}

/** The unpacked snapshot a restore of the tenant under way restores from, if any. */
export function restoreDirOf(db: Db, tenantId: string): string | undefined {
  return db.prepare('SELECT dir FROM tenant_restores WHERE tenant_id = ?').pluck().get(tenantId) as string | undefined;
}

/** Records (or replaces) the restore of a tenant under way: written before its first slice. */
export function writeMarker(
  db: Db,
  marker: { tenantId: string; snapshotId: string; dir: string; trustIndexFiles: boolean; startedAt: number },
): void {
  db.prepare(
    `INSERT OR REPLACE INTO tenant_restores (tenant_id, snapshot_id, dir, trust_index_files, started_at)
       VALUES (?, ?, ?, ?, ?)`,
  ).run(marker.tenantId, marker.snapshotId, marker.dir, marker.trustIndexFiles ? 1 : 0, marker.startedAt);
}

/** Ends the restore of a tenant: its marker goes with its last slice. */
export function deleteMarker(db: Db, tenantId: string): void {
  db.prepare('DELETE FROM tenant_restores WHERE tenant_id = :tenant').run({ tenant: tenantId });
}

/** Attaches a snapshot's database as schema `s`. */
export function attachSnapshot(db: Db, file: string): void {
  db.prepare('ATTACH DATABASE ? AS s').run(file);
}

export function detachSnapshot(db: Db): void {
  db.exec('DETACH DATABASE s');
}

/** The tenants a whole-node snapshot's database holds. */
export function tenantsOf(file: string): string[] {
  const snapshot = new Database(file, { readonly: true });
  try {
    return snapshot.prepare('SELECT id FROM tenants ORDER BY id').pluck().all() as string[];
  } finally {
    snapshot.close();
  }
}

/** Of `tables`, the first that a database file does not hold as a table (a view of a crafted upload), if any. */
export function firstNonTable(file: string, tables: readonly string[]): string | undefined {
  const db = new Database(file, { readonly: true });
  try {
    const typeOf = db.prepare('SELECT type FROM sqlite_master WHERE name = ?').pluck();
    return tables.find((table) => typeOf.get(table) !== 'table');
  } finally {
    db.close();
  }
}

/** How many tenants (besides `keepTenants`) and documents the node holds. */
export function nodeHolds(db: Db, keepTenants: readonly string[]): { tenants: number; documents: number } {
  const tenants = db
    .prepare('SELECT count(*) FROM tenants WHERE id NOT IN (SELECT value FROM json_each(?))')
    .pluck()
    .get(JSON.stringify(keepTenants)) as number;
  const documents = db.prepare('SELECT count(*) FROM documents').pluck().get() as number;
  return { tenants, documents };
}

/** A whole-node restore: the tenants, users, groups and API keys of the snapshot (not the node's own tenants). */
export function copyDirectory(db: Db, keep: readonly string[]): void {
  const kept = JSON.stringify(keep);
  const others = `NOT IN (SELECT value FROM json_each(:kept))`;
  const copy = (table: string, where: string, orIgnore = false) => {
    const columns = columnsOf(db, table).join(', ');
    db.prepare(
      `INSERT ${orIgnore ? 'OR IGNORE ' : ''}INTO main.${table} (${columns}) SELECT ${columns} FROM s.${table} WHERE ${where}`,
    ).run({ kept });
  };
  copy('tenants', `id ${others}`);
  copy('users', `tenant_id ${others}`);
  copy('groups', `tenant_id ${others}`);
  copy('group_members', `group_id IN (SELECT id FROM s.groups WHERE tenant_id ${others})`);
  copy('permissions', `:kept IS NOT NULL`, true);
  copy('group_permissions', `group_id IN (SELECT id FROM s.groups WHERE tenant_id ${others})`);
  copy('api_keys', `tenant_id ${others}`);
}

/** The highest seq a table has used (its rows, or AUTOINCREMENT's record of deleted ones). */
export function highestSeq(db: Db, table: string): number {
  return db
    .prepare(
      `SELECT max(COALESCE((SELECT max(seq) FROM main.${table}), 0), COALESCE((SELECT seq FROM main.sqlite_sequence WHERE name = ?), 0))`,
    )
    .pluck()
    .get(table) as number;
}

/**
 * A reader of the stored files the tenant's documents in `schema` name (`main`, or the attached snapshot `s`), by
 * document seq range (`after` excluded, `through` included).
 */
export function fileKeyReader(
  db: Db,
  schema: 'main' | 's',
  tenantId: string,
): (after: number, through: number) => string[] {
  const read = db
    .prepare(
      `SELECT json_extract(fields, '$.file_path') FROM ${schema}.documents NOT INDEXED
         WHERE seq > :after AND seq <= :through AND tenant_id = :tenant AND json_extract(fields, '$.file_path') IS NOT NULL`,
    )
    .pluck();
  return (after, through) => read.all({ tenant: tenantId, after, through }) as string[];
}

/** Whether the node holds any row of `table` with a seq in `bounds` (one range lookup). */
export function seqsOccupied(db: Db, table: SeqTable, bounds: Bounds): boolean {
  return (
    db
      .prepare(`SELECT EXISTS (SELECT 1 FROM main.${table} WHERE seq BETWEEN ? AND ?)`)
      .pluck()
      .get(bounds.low, bounds.high) === 1
  );
}

/** A check whether a snapshot row of the tenant (`s`) in a seq range has the seq of a row this node holds. */
export function clashReader(db: Db, table: SeqTable, tenantId: string): (after: number, through: number) => boolean {
  const check = db
    .prepare(
      `SELECT EXISTS (SELECT 1 FROM s.${table} x NOT INDEXED JOIN main.${table} m ON m.seq = x.seq
         WHERE x.seq > :after AND x.seq <= :through AND x.tenant_id = :tenant)`,
    )
    .pluck();
  return (after, through) => check.get({ tenant: tenantId, after, through }) === 1;
}

/**
 * Whether a row of this node with a seq above `mark` has the seq of one of the tenant's snapshot rows (`s`): the few
 * rows written since the mark first (CROSS JOIN keeps that order), each looked up in the snapshot.
 */
export function clashesSince(db: Db, table: string, tenantId: string, mark: number): boolean {
  return (
    db
      .prepare(
        `SELECT EXISTS (SELECT 1 FROM main.${table} m CROSS JOIN s.${table} x ON x.seq = m.seq WHERE m.seq > ? AND x.tenant_id = ?)`,
      )
      .pluck()
      .get(mark, tenantId) === 1
  );
}

/**
 * Reserves the seqs the tenant's snapshot rows of `table` will take — where they are (`keep`), or past the node's
 * highest — by moving AUTOINCREMENT's record past them, so that rows other tenants write between the slices never
 * take one; answers the offset that moves them (0 when kept).
 */
export function reserveSeqs(db: Db, table: SeqTable, { low, high }: Bounds, keep: boolean): number {
  const offset = keep ? 0 : highestSeq(db, table) - (low - 1);
  // sqlite_sequence has no key on its name: update the table's row, or add it when the table never had one.
  const reserved = Math.max(high + offset, highestSeq(db, table));
  const updated = db.prepare('UPDATE main.sqlite_sequence SET seq = ? WHERE name = ?').run(reserved, table).changes;
  if (updated === 0) db.prepare('INSERT INTO main.sqlite_sequence (name, seq) VALUES (?, ?)').run(table, reserved);
  return offset;
}

/** The lowest and highest seq of `table` in `schema` (`low` > `high` when it is empty): two key lookups. */
export function tableBounds(db: Db, schema: 'main' | 's', table: SeqTable): Bounds {
  const { low, high } = db.prepare(`SELECT min(seq) AS low, max(seq) AS high FROM ${schema}.${table}`).get() as {
    low: number | null;
    high: number | null;
  };
  return low === null || high === null ? { low: 1, high: 0 } : { low, high };
}

/** The lowest and highest seq of the tenant's rows of `table` in `schema` (`low` > `high` when it has none). */
export function seqBounds(db: Db, schema: 'main' | 's', table: SeqTable, tenantId: string): Bounds {
  const { low, high } = db
    .prepare(`SELECT min(seq) AS low, max(seq) AS high FROM ${schema}.${table} WHERE tenant_id = ?`)
    .get(tenantId) as { low: number | null; high: number | null };
  return low === null || high === null ? { low: 1, high: 0 } : { low, high };
}

/** How many rows of a tenant the tables of a restore hold in `schema`. */
export function tenantRowCount(db: Db, schema: string, tenantId: string): number {
  let total = 0;
  for (const table of tenantOwnTables)
    total += db.prepare(`SELECT count(*) FROM ${schema}.${table} WHERE tenant_id = ?`).pluck().get(tenantId) as number;
  return total;
}

/** How many rows a table of the attached snapshot holds (a tenant snapshot: all of them the tenant's). */
export function snapshotRowCount(db: Db, table: string): number {
  return db.prepare(`SELECT count(*) FROM s.${table}`).pluck().get() as number;
}

/** Of `keys`, those no document row names (after a failed swap: the files it put that nothing uses). */
export function unnamed(db: Db, keys: readonly string[]): string[] {
  const named = db.prepare("SELECT 1 FROM documents WHERE json_extract(fields, '$.file_path') = ? LIMIT 1");
  return keys.filter((key) => named.get(key) === undefined);
}

/**
 * Deletes the geo, access and field-index rows of the tenant's documents with a seq in (`after`, `through`], and the
 * state of its field index builds: the restored documents are indexed again from their rows (the declarations come
 * with the restored collections; their builds start when the node starts, and filters read the documents meanwhile).
 */
export function deleteDocumentIndexRows(db: Db, tenantId: string, after: number, through: number): void {
  const seqs = `SELECT seq FROM documents NOT INDEXED WHERE seq > :after AND seq <= :through AND tenant_id = :tenant`;
  db.prepare(`DELETE FROM geo_rtree WHERE doc_seq IN (${seqs})`).run({ tenant: tenantId, after, through });
  db.prepare(`DELETE FROM document_access WHERE doc_seq IN (${seqs})`).run({ tenant: tenantId, after, through });
  db.prepare(`DELETE FROM field_postings WHERE doc_seq IN (${seqs})`).run({ tenant: tenantId, after, through });
  db.prepare(`DELETE FROM sparse_postings WHERE doc_seq IN (${seqs})`).run({ tenant: tenantId, after, through });
  SparsePostings.of(db).forget(tenantId);
  FieldLists.of(db).forget(tenantId);
  db.prepare('DELETE FROM field_index_builds WHERE tenant_id = :tenant').run({ tenant: tenantId });
}

/** Deletes up to `limit` of the tenant's rows of `table`; answers how many. */
export function deleteTenantRows(db: Db, table: (typeof tenantOwnTables)[number], tenantId: string, limit: number) {
  return db
    .prepare(
      `DELETE FROM ${table} WHERE rowid IN (SELECT rowid FROM ${table} WHERE tenant_id = :tenant LIMIT ${limit})`,
    )
    .run({ tenant: tenantId }).changes;
}

/** Adds the tenant's row if it has none, created at `now` (unix seconds, the engine's clock). */
export function ensureTenant(db: Db, tenantId: string, now: number): void {
  db.prepare('INSERT OR IGNORE INTO tenants (id, created_at) VALUES (:tenant, :now)').run({ tenant: tenantId, now });
}

/** Forgets the tenant's vector generations (its rows were renumbered: the indexes are rebuilt). */
export function dropGenerations(db: Db, tenantId: string): void {
  db.prepare('DELETE FROM vector_generations WHERE tenant_id = :tenant').run({ tenant: tenantId });
}

/**
 * Fills the geo R*Tree from the tenant's live documents with a seq in (`after`, `through`]; answers how many live
 * documents the range holds.
 */
export function indexGeoRange(db: Db, tenantId: string, after: number, through: number): number {
  const range = { tenant: tenantId, after, through };
  db.prepare(
    `INSERT INTO geo_rtree (doc_seq, min_lat, max_lat, min_lon, max_lon)
       SELECT seq, lat, lat, lon, lon FROM documents NOT INDEXED
       WHERE seq > :after AND seq <= :through AND tenant_id = :tenant AND lat IS NOT NULL AND lon IS NOT NULL
         AND deleted_at IS NULL AND superseded = 0`,
  ).run(range);
  // Sparse postings likewise, from the documents' fields (decision 0058).
  indexSparseRange(db, tenantId, after, through);
  return db
    .prepare(
      `SELECT count(*) FROM documents NOT INDEXED
         WHERE seq > :after AND seq <= :through AND tenant_id = :tenant AND deleted_at IS NULL AND superseded = 0`,
    )
    .pluck()
    .get(range) as number;
}
