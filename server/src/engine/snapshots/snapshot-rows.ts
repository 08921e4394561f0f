import type Database from 'better-sqlite3';
import type { Bounds } from './slices.js';

/**
 * The store's side of taking a snapshot (Snapshots): the statements of the read transaction that fixes its point, on
 * a connection of its own (the whole store read as it is, or the live store attached as `s` to a fresh tenant
 * database), and the reads of the copy it made.
 */

/**
 * Where a snapshot stands: the highest document seq and the schema version at its point, and for a whole node the
 * replicated log's applied sequence of each shard, by shard number (cluster mode; empty on an embedded node).
 */
export interface SnapshotPoint {
  readonly lastSeq: number;
  readonly schemaVersion: number;
  readonly clusterApplied?: Readonly<Record<string, number>>;
}

/** Opens the read transaction of a whole-node snapshot on `reader` (the store, read-only): its point. */
export function beginNodeRead(reader: Database.Database): SnapshotPoint {
  reader.exec('BEGIN');
  const lastSeq = reader.prepare('SELECT COALESCE(MAX(seq), 0) FROM documents').pluck().get() as number;
  const schemaVersion = reader.pragma('user_version', { simple: true }) as number;
  const clusterApplied = Object.fromEntries(
    (reader.prepare('SELECT shard, seq FROM cluster_applied').all() as { shard: number; seq: number }[]).map((row) => [
      String(row.shard),
      row.seq,
    ]),
  );
  return { lastSeq, schemaVersion, clusterApplied };
}

/** Ends the read transaction of a whole-node snapshot. */
export function endNodeRead(reader: Database.Database): void {
  reader.exec('COMMIT');
}

/**
 * Attaches the live store (`file`) as `s` to `reader` (a fresh tenant database, a staging file whose writes need no
 * sync) and opens the read transaction the tenant's rows are copied in, kept across slices: its point.
 */
export function beginTenantRead(reader: Database.Database, file: string, tenantId: string): SnapshotPoint {
  reader.pragma('synchronous = OFF');
  reader.prepare('ATTACH DATABASE ? AS s').run(file);
  reader.exec('BEGIN');
  const lastSeq = reader
    .prepare('SELECT COALESCE(MAX(seq), 0) FROM s.documents WHERE tenant_id = ?')
    .pluck()
    .get(tenantId) as number;
  const schemaVersion = reader.prepare('PRAGMA s.user_version').pluck().get() as number;
  return { lastSeq, schemaVersion };
}

/** Ends the read transaction of a tenant snapshot and detaches the live store. */
export function endTenantRead(reader: Database.Database): void {
  reader.exec('COMMIT');
  reader.exec('DETACH DATABASE s');
}

/**
 * The document seqs a snapshot's database holds (`low` > `high`: none), and a reader of the stored files its documents
 * in a seq range (`after` excluded, `through` included) name.
 */
export function fileKeyPages(backup: Database.Database): {
  bounds: Bounds;
  read: (after: number, through: number) => string[];
} {
  const read = backup
    .prepare(
      `SELECT json_extract(fields, '$.file_path') FROM documents
         WHERE seq > ? AND seq <= ? AND json_extract(fields, '$.file_path') IS NOT NULL`,
    )
    .pluck();
  const { low, high } = backup.prepare('SELECT min(seq) AS low, max(seq) AS high FROM documents').get() as {
    low: number | null;
    high: number | null;
  };
  return {
    bounds: low === null || high === null ? { low: 1, high: 0 } : { low, high },
    read: (after, through) => read.all(after, through) as string[],
  };
}
