import type { FieldIndexKind } from '@godb/contract';
import { alive } from '../access/search-rows.js';
import type { Db } from '../storage/database.js';
import { StatementCache } from '../storage/statement-cache.js';

/** The state of one declared index's build on this node. */
export interface BuildRow {
  readonly tenant_id: string;
  readonly collection: string;
  readonly path: string;
  readonly kind: FieldIndexKind;
  readonly state: 'building' | 'ready' | 'failed';
  /** Documents with a seq up to this one are indexed (of those up to `target`). */
  readonly built_through: number;
  /** The collection's last document seq when the index was declared: later documents are indexed as written. */
  readonly target: number;
  /** Live documents to index when it was declared, and how many of them are done. */
  readonly total: number;
  readonly done: number;
  /** 1 once a document held two values or more (a list) in this index. */
  readonly multi: number;
  readonly error: string | null;
}

/** A live document as a build reads it: the columns a field index can read, and the stored fields. */
export interface BuildDocument {
  readonly seq: number;
  readonly id: string;
  readonly title: string;
  readonly visibility: string;
  readonly created_at: number;
  readonly updated_at: number;
  readonly parent_doc_id: string | null;
  readonly fields: string;
}

/** A latitude/longitude box, in degrees. */
export interface GeoBox {
  readonly minLat: number;
  readonly maxLat: number;
  readonly minLon: number;
  readonly maxLon: number;
}

/** A range of values: any of the bounds (a number, or text compared as text). */
export interface ValueRange {
  readonly gt?: string | number;
  readonly gte?: string | number;
  readonly lt?: string | number;
  readonly lte?: string | number;
}

/** The WHERE terms of a range's bounds (named parameters @gt, @gte, @lt, @lte), or any value at all. */
function rangeWhere(r: ValueRange): string {
  const bounds = [
    r.gt !== undefined ? 'value > @gt' : '',
    r.gte !== undefined ? 'value >= @gte' : '',
    r.lt !== undefined ? 'value < @lt' : '',
    r.lte !== undefined ? 'value <= @lte' : '',
  ].filter((b) => b !== '');
  return bounds.length > 0 ? bounds.join(' AND ') : 'value IS NOT NULL';
}

/**
 * Every SQL statement of field indexes (issue #39): the postings (tenant, collection, path, value, document seq),
 * looked up by value, by range and by presence; the state of each index's build; and the rows a build reads.
 * Every method runs inside the caller's transaction when there is one.
 */
export class FieldIndexRows {
  readonly #db: Db;
  readonly #sql: StatementCache;

  constructor(db: Db) {
    this.#db = db;
    this.#sql = new StatementCache(db);
  }

  /** Whether a write transaction is open. */
  get inTransaction(): boolean {
    return this.#db.inTransaction;
  }

  /** Whether the store is open (a build stops when the engine closes). */
  get open(): boolean {
    return this.#db.open;
  }

  /** Runs `work` in a transaction of its own (a build's slice). */
  transaction<T>(work: () => T): T {
    return this.#db.transaction(work)();
  }

  /** One document's postings for one path: a NULL value saying it has one, then each key. */
  post(tenantId: string, collection: string, path: string, seq: number, keys: readonly (string | number)[]): void {
    const insert = this.#sql.get(
      'INSERT INTO field_postings (tenant_id, collection, path, value, doc_seq) VALUES (?, ?, ?, ?, ?)',
    );
    insert.run(tenantId, collection, path, null, seq);
    const distinct = new Set(keys);
    for (const key of distinct) insert.run(tenantId, collection, path, key, seq);
    if (distinct.size > 1) {
      this.#sql
        .get(
          'UPDATE field_index_builds SET multi = 1 WHERE tenant_id = ? AND collection = ? AND path = ? AND multi = 0',
        )
        .run(tenantId, collection, path);
    }
  }

  /** Removes a document's postings of one path (a build indexing it again). */
  unpostPath(seq: number, path: string): void {
    this.#sql.get('DELETE FROM field_postings WHERE doc_seq = ? AND path = ?').run(seq, path);
  }

  /** Seqs of the documents whose field holds one of `keys`. */
  equal(tenantId: string, collection: string, path: string, keys: readonly (string | number)[]): number[] {
    // One lookup per key: with `value IN (SELECT value FROM json_each(?))` SQLite read every posting of the path
    // (19 ms for a 50-document tag at 50,000 documents, growing with the collection).
    const lookup = this.#sql
      .get('SELECT doc_seq FROM field_postings WHERE tenant_id = ? AND collection = ? AND path = ? AND value = ?')
      .pluck();
    const out: number[] = [];
    for (const key of new Set(keys))
      for (const seq of lookup.all(tenantId, collection, path, key) as number[]) out.push(seq);
    return out;
  }

  /** Seqs of the documents whose field holds a value in the range (each bound given, or open). */
  range(tenantId: string, collection: string, path: string, r: ValueRange): number[] {
    return this.#sql
      .get(
        `SELECT doc_seq FROM field_postings WHERE tenant_id = @tenant AND collection = @collection AND path = @path
           AND ${rangeWhere(r)}`,
      )
      .pluck()
      .all({ tenant: tenantId, collection, path, ...r }) as number[];
  }

  /**
   * Documents whose field holds `key`, counted up to `cap` (the planner's estimate: reading the index's entries, not
   * the documents, and stopping at the cap).
   */
  countKey(tenantId: string, collection: string, path: string, key: string | number, cap: number): number {
    return this.#sql
      .get(
        `SELECT count(*) FROM (SELECT 1 FROM field_postings WHERE tenant_id = ? AND collection = ? AND path = ? AND value = ?
           LIMIT ?)`,
      )
      .pluck()
      .get(tenantId, collection, path, key, cap) as number;
  }

  /** Postings in the range, counted up to `cap`. */
  countRange(tenantId: string, collection: string, path: string, r: ValueRange, cap: number): number {
    return this.#sql
      .get(
        `SELECT count(*) FROM (SELECT 1 FROM field_postings WHERE tenant_id = @tenant AND collection = @collection
           AND path = @path AND ${rangeWhere(r)} LIMIT @cap)`,
      )
      .pluck()
      .get({ tenant: tenantId, collection, path, cap, ...r }) as number;
  }

  /** Documents that have a value for the field, counted up to `cap`. */
  countPresent(tenantId: string, collection: string, path: string, cap: number): number {
    return this.#sql
      .get(
        `SELECT count(*) FROM (SELECT 1 FROM field_postings WHERE tenant_id = ? AND collection = ? AND path = ?
           AND value IS NULL LIMIT ?)`,
      )
      .pluck()
      .get(tenantId, collection, path, cap) as number;
  }

  /**
   * Live documents of a collection whose location is in the box (the R*Tree, whose float32 boxes contain the true
   * points), with their exact coordinates, at most `cap`.
   */
  pointsInBox(
    tenantId: string,
    collection: string,
    box: GeoBox,
    cap: number,
  ): { seq: number; lat: number; lon: number }[] {
    return this.#sql
      .get(
        `SELECT d.seq, d.lat, d.lon FROM geo_rtree g CROSS JOIN documents d ON d.seq = g.doc_seq
         WHERE g.max_lat >= @minLat AND g.min_lat <= @maxLat AND g.max_lon >= @minLon AND g.min_lon <= @maxLon
           AND +d.tenant_id = @tenant AND +d.primary_table = @collection AND ${alive} LIMIT @cap`,
      )
      .all({ ...box, tenant: tenantId, collection, cap }) as { seq: number; lat: number; lon: number }[];
  }

  /** Located live documents of a collection (a geo index's size). */
  located(tenantId: string, collection: string): number {
    return this.#sql
      .get(
        `SELECT count(*) FROM documents d WHERE d.tenant_id = ? AND d.primary_table = ? AND d.lat IS NOT NULL AND ${alive}`,
      )
      .pluck()
      .get(tenantId, collection) as number;
  }

  /** The postings of one path among documents `seqs` (JSON array): a NULL value says the document has one. */
  valuesOf(seqs: string, path: string): { seq: number; value: string | number | null }[] {
    return this.#sql
      .get(
        // (doc_seq, path, value) covers it (migration 21): one index seek per document, no table rows.
        'SELECT doc_seq AS seq, value FROM field_postings WHERE doc_seq IN (SELECT value FROM json_each(?)) AND path = ?',
      )
      .all(seqs, path) as { seq: number; value: string | number | null }[];
  }

  /** Every posting of an index in the lookup index's order: presence rows (NULL) first, then by value and seq. */
  postings(tenantId: string, collection: string, path: string): IterableIterator<[string | number | null, number]> {
    return this.#sql
      .get(
        `SELECT value, doc_seq FROM field_postings WHERE tenant_id = ? AND collection = ? AND path = ?
         ORDER BY value, doc_seq`,
      )
      .raw()
      .iterate(tenantId, collection, path) as IterableIterator<[string | number | null, number]>;
  }

  /** One document version's postings of a path (a NULL value says it has one); none once it left the indexes. */
  postingsOf(seq: number, path: string): (string | number | null)[] {
    return this.#sql.get('SELECT value FROM field_postings WHERE doc_seq = ? AND path = ?').pluck().all(seq, path) as (
      string | number | null
    )[];
  }

  /** Seqs of the documents that have a value (not missing, not null) for the field. */
  present(tenantId: string, collection: string, path: string): number[] {
    return this.#sql
      .get('SELECT doc_seq FROM field_postings WHERE tenant_id = ? AND collection = ? AND path = ? AND value IS NULL')
      .pluck()
      .all(tenantId, collection, path) as number[];
  }

  /** Seqs of the collection's live documents (what a negation takes away from). */
  live(tenantId: string, collection: string): number[] {
    return this.#sql
      .get(`SELECT seq FROM documents d WHERE d.tenant_id = ? AND d.primary_table = ? AND ${alive}`)
      .pluck()
      .all(tenantId, collection) as number[];
  }

  /** Documents with a value, and postings of values, of one index. */
  counts(tenantId: string, collection: string, path: string): { documents: number; postings: number } {
    return this.#sql
      .get(
        `SELECT count(*) FILTER (WHERE value IS NULL) AS documents, count(*) FILTER (WHERE value IS NOT NULL) AS postings
         FROM field_postings WHERE tenant_id = ? AND collection = ? AND path = ?`,
      )
      .get(tenantId, collection, path) as { documents: number; postings: number };
  }

  /** The builds of a collection's indexes, by path. */
  builds(tenantId: string, collection: string): BuildRow[] {
    return this.#sql
      .get('SELECT * FROM field_index_builds WHERE tenant_id = ? AND collection = ? ORDER BY path')
      .all(tenantId, collection) as BuildRow[];
  }

  /** The first index still building, on any tenant. */
  nextBuilding(): BuildRow | undefined {
    return this.#sql.get("SELECT * FROM field_index_builds WHERE state = 'building' LIMIT 1").get() as
      BuildRow | undefined;
  }

  /** Starts the build of a declared index: up to the collection's last document seq now. */
  startBuild(tenantId: string, collection: string, path: string, kind: FieldIndexKind): void {
    const { target, total } = this.#sql
      .get(
        `SELECT coalesce(max(seq), 0) AS target, count(*) AS total FROM documents d
         WHERE d.tenant_id = ? AND d.primary_table = ? AND ${alive}`,
      )
      .get(tenantId, collection) as { target: number; total: number };
    this.#sql
      .get(
        `INSERT INTO field_index_builds (tenant_id, collection, path, kind, state, built_through, target, total, done)
         VALUES (?, ?, ?, ?, ?, 0, ?, ?, 0)`,
      )
      // A geo index is the R*Tree every located document is in already: ready at once.
      .run(tenantId, collection, path, kind, total === 0 || kind === 'geo' ? 'ready' : 'building', target, total);
  }

  /** Records a build's progress; `ready` when it reached its target. */
  progress(b: BuildRow, builtThrough: number, done: number, ready: boolean): void {
    this.#sql
      .get(
        `UPDATE field_index_builds SET built_through = ?, done = ?, state = ? WHERE tenant_id = ? AND collection = ? AND path = ?`,
      )
      .run(builtThrough, done, ready ? 'ready' : 'building', b.tenant_id, b.collection, b.path);
  }

  /** Marks a build failed (a document holds a value of another type) and drops what it indexed. */
  fail(b: BuildRow, error: string): void {
    this.#sql
      .get(
        `UPDATE field_index_builds SET state = 'failed', error = ? WHERE tenant_id = ? AND collection = ? AND path = ?`,
      )
      .run(error, b.tenant_id, b.collection, b.path);
    this.#sql
      .get('DELETE FROM field_postings WHERE tenant_id = ? AND collection = ? AND path = ?')
      .run(b.tenant_id, b.collection, b.path);
  }

  /** Drops an index: its build and its postings (`path` undefined: every index of the collection). */
  drop(tenantId: string, collection: string, path?: string): void {
    const which = path === undefined ? '' : ' AND path = @path';
    const args = { tenant: tenantId, collection, ...(path !== undefined && { path }) };
    this.#sql
      .get(`DELETE FROM field_index_builds WHERE tenant_id = @tenant AND collection = @collection${which}`)
      .run(args);
    this.#sql
      .get(`DELETE FROM field_postings WHERE tenant_id = @tenant AND collection = @collection${which}`)
      .run(args);
  }

  /** Live documents of a collection with seqs in (after, through], in seq order, at most `limit`. */
  documents(tenantId: string, collection: string, after: number, through: number, limit: number): BuildDocument[] {
    return this.#sql
      .get(
        `SELECT seq, id, title, visibility, created_at, updated_at, parent_doc_id, fields FROM documents d
         WHERE d.tenant_id = ? AND d.primary_table = ? AND d.seq > ? AND d.seq <= ? AND ${alive}
         ORDER BY d.seq LIMIT ?`,
      )
      .all(tenantId, collection, after, through, limit) as BuildDocument[];
  }

  /** Every collection that declares indexes: its tenant, name and declaration (JSON). */
  declaring(): { tenant_id: string; name: string; indexes: string }[] {
    return this.#sql.get("SELECT tenant_id, name, indexes FROM collections WHERE indexes <> '{}'").all() as {
      tenant_id: string;
      name: string;
      indexes: string;
    }[];
  }
}
