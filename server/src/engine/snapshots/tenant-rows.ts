import Database from 'better-sqlite3';
import type { Db } from '../storage/database.js';
import { migrations } from '../storage/migrations.js';

/**
 * The tables that hold a tenant's data, in the order they are copied, each with the rows that belong to the
 * tenant (`s` is the source schema). Jobs, the mail outbox and the deletions owed are the node's bookkeeping;
 * the text and geo indexes are rebuilt from the rows (FTS5 and R*Tree tables are derived); users, groups and API
 * keys (the directory) stay out, so a restore never brings back a revoked key or an old password, and a tenant
 * admin's snapshot holds no password or key hashes.
 */
export const tenantTables: readonly { readonly table: string; readonly where: string }[] = [
  { table: 'documents', where: 'tenant_id = :tenant' },
  // Rows keyed by a document are the tenant's only when that document is (in the schema read): an uploaded archive
  // could name another tenant's document seq, which a restore must never attach rows to.
  {
    table: 'chunks',
    where: 'tenant_id = :tenant AND (SELECT d.tenant_id FROM s.documents d WHERE d.seq = chunks.doc_seq) = :tenant',
  },
  // No tenant column: copied by the tenant's document seq ranges (see copyTenantRange), never by its own rowids, which
  // would walk every tenant's access rows.
  {
    table: 'document_access',
    where: '(SELECT d.tenant_id FROM s.documents d WHERE d.seq = document_access.doc_seq) = :tenant',
  },
  {
    table: 'document_vectors',
    where:
      'tenant_id = :tenant AND (SELECT d.tenant_id FROM s.documents d WHERE d.seq = document_vectors.doc_seq) = :tenant',
  },
  { table: 'collections', where: 'tenant_id = :tenant' },
  { table: 'vector_generations', where: 'tenant_id = :tenant' },
  { table: 'engagement_events', where: 'tenant_id = :tenant' },
];

/** Creates an empty database with the current schema (every migration), e.g. a tenant snapshot's `tenant.sqlite`. */
export function createEmptyStore(file: string): Database.Database {
  const db = new Database(file);
  db.pragma('journal_mode = DELETE');
  db.transaction(() => {
    for (const migration of migrations) db.exec(migration.sql);
    db.pragma(`user_version = ${migrations[migrations.length - 1]!.version}`);
  })();
  return db;
}

/** The columns of a table, in order. */
export function columnsOf(db: Db, table: string, schema = 'main'): string[] {
  return (db.prepare(`SELECT name FROM pragma_table_info(?, ?)`).all(table, schema) as { name: string }[]).map(
    (row) => row.name,
  );
}

/**
 * How many rows of the tenant the tables with a tenant column hold in the attached schema `s` (all but
 * `document_access`), for progress: counted on the tenant's indexes, without reading the rows.
 */
export function countTenantRows(db: Db, tenantId: string): number {
  let total = 0;
  for (const { table } of tenantTables)
    if (table !== 'document_access')
      total += db.prepare(`SELECT count(*) FROM s.${table} WHERE tenant_id = ?`).pluck().get(tenantId) as number;
  return total;
}

/**
 * The rowids a tenant's rows of `table` lie between in the attached schema `s` (`low` > `high` when it has none):
 * from the tenant's index, read once, so that slices then walk rowid ranges and never scan the tenant's rows again.
 * For `document_access` (no tenant column), the seqs of the tenant's documents. `wholeTable`: the ends of the whole
 * table (two key lookups), for a database that holds only the tenant's rows (a tenant snapshot's).
 */
export function tenantRowidBounds(
  db: Db,
  tenantId: string,
  table: (typeof tenantTables)[number],
  wholeTable = false,
): { low: number; high: number } {
  const name = table.table === 'document_access' ? 'documents' : table.table;
  const bounds = db
    .prepare(`SELECT min(rowid) AS low, max(rowid) AS high FROM s.${name} ${wholeTable ? '' : 'WHERE tenant_id = ?'}`)
    .get(...(wholeTable ? [] : [tenantId])) as { low: number | null; high: number | null };
  return bounds.low === null || bounds.high === null ? { low: 1, high: 0 } : { low: bounds.low, high: bounds.high };
}

/**
 * Copies the tenant's rows of `table` with a rowid in (`after`, `through`] from the attached schema `s` into `main`,
 * in one INSERT … SELECT that walks that rowid range of the table (NOT INDEXED: a tenant index would read every row
 * of the tenant to find those of the range, once per slice); answers the rows copied. Every table here is a rowid
 * table, so consecutive ranges never split or repeat a row. `document_access` goes by document: the access rows of
 * the tenant's documents with a seq in the range (looked up by their key, which starts with the document's seq).
 * `shift` adds an offset to columns (renumbered seqs), `skip` leaves columns to their defaults (an AUTOINCREMENT id).
 *
 * @example copyTenantRange(db, tenantId, tenantTables[0]!, 0, 5000); // documents with seqs 1 to 5000
 */
export function copyTenantRange(
  db: Db,
  tenantId: string,
  table: (typeof tenantTables)[number],
  after: number,
  through: number,
  options: { shift?: Readonly<Record<string, number>> | undefined; skip?: readonly string[] } = {},
): number {
  const columns = columnsOf(db, table.table).filter((column) => !options.skip?.includes(column));
  const select = columns.map((column) => {
    const offset = options.shift?.[column] ?? 0;
    return offset === 0 ? column : `${column} + ${offset}`;
  });
  const params = { tenant: tenantId, after, through };
  if (table.table === 'document_access')
    return db
      .prepare(
        `INSERT INTO main.document_access (${columns.join(', ')})
           SELECT ${select.map((column) => `a.${column}`).join(', ')}
           FROM s.documents d NOT INDEXED JOIN s.document_access a ON a.doc_seq = d.seq
           WHERE d.seq > :after AND d.seq <= :through AND d.tenant_id = :tenant ORDER BY a.doc_seq`,
      )
      .run(params).changes;
  return db
    .prepare(
      `INSERT INTO main.${table.table} (${columns.join(', ')})
         SELECT ${select.join(', ')} FROM s.${table.table} NOT INDEXED
         WHERE rowid > :after AND rowid <= :through AND ${table.where} ORDER BY rowid`,
    )
    .run(params).changes;
}
