import type { Db } from '../storage/database.js';
import { FieldIndexRows } from './field-index-rows.js';
import { FieldList, type FieldKey } from './field-list.js';

/** A write the in-memory lists have not seen yet: a document version posted under a path, or unposted (any path). */
interface Touched {
  readonly key?: string;
  readonly seq: number;
}

/** Noted writes past which the lists are dropped rather than caught up (a bulk import: built again on first use). */
const maxTouched = 200_000;

const listKey = (tenantId: string, collection: string, path: string) => JSON.stringify([tenantId, collection, path]);

/**
 * The declared field indexes in memory (issue #39, decision 0077), one FieldList per (tenant, collection, path), as
 * the sparse lists are kept (decision 0070): SQLite's field_postings stays the truth, written in each write's
 * transaction; a list is built from it on its first use (one ordered walk of the lookup index), and kept in step by
 * the writes, which note their documents: before the next use outside a transaction each noted document's postings
 * are read from SQLite (one covering-index read) and the list made to match, so a write that rolled back changes
 * nothing. Inside a transaction no list is answered (the caller reads SQLite, which sees the transaction's writes).
 * A restore, a dropped or redeclared index and a removed collection forget the lists concerned.
 */
export class FieldLists {
  static readonly #byDb = new WeakMap<Db, FieldLists>();
  readonly #db: Db;
  readonly #rows: FieldIndexRows;
  readonly #lists = new Map<string, FieldList>();
  #touched: Touched[] = [];

  /** The lists of a store, made once (their statements are prepared once). */
  static of(db: Db): FieldLists {
    let lists = FieldLists.#byDb.get(db);
    if (!lists) FieldLists.#byDb.set(db, (lists = new FieldLists(db)));
    return lists;
  }

  constructor(db: Db) {
    this.#db = db;
    this.#rows = new FieldIndexRows(db);
  }

  /** A document version was posted under a path (its rows may still roll back). */
  posted(tenantId: string, collection: string, path: string, seq: number): void {
    const key = listKey(tenantId, collection, path);
    if (this.#lists.has(key)) this.#note({ key, seq });
  }

  /** A document version's postings were deleted, whatever their paths (its rows may still come back by a rollback). */
  unposted(seq: number): void {
    if (this.#lists.size > 0) this.#note({ seq });
  }

  /** The postings of a tenant (or one collection, or one path) were rewritten in bulk: built again on next use. */
  forget(tenantId: string, collection?: string, path?: string): void {
    for (const key of [...this.#lists.keys()]) {
      const [t, c, p] = JSON.parse(key) as string[];
      if (t === tenantId && (collection === undefined || c === collection) && (path === undefined || p === path))
        this.#lists.delete(key);
    }
  }

  /**
   * The list of one ready index, in step with SQLite: built on first use, caught up with the writes noted since.
   * Undefined inside a write transaction, where only SQLite sees the transaction's own writes.
   */
  list(tenantId: string, collection: string, path: string): FieldList | undefined {
    if (this.#db.inTransaction) return undefined;
    if (this.#touched.length > 0) this.#catchUp();
    const key = listKey(tenantId, collection, path);
    let list = this.#lists.get(key);
    if (!list) {
      list = this.#build(tenantId, collection, path);
      this.#lists.set(key, list);
    }
    return list;
  }

  /** Memory the lists of a collection hold, by path, in bytes (decision 0077 quotes it per document). */
  bytes(tenantId: string, collection: string): Record<string, number> {
    const out: Record<string, number> = {};
    for (const [key, list] of this.#lists) {
      const [t, c, p] = JSON.parse(key) as string[];
      if (t === tenantId && c === collection) out[p!] = list.bytes();
    }
    return out;
  }

  #note(t: Touched): void {
    if (this.#touched.length >= maxTouched) {
      this.#lists.clear();
      this.#touched = [];
      return;
    }
    this.#touched.push(t);
  }

  /** Reads every posting of an index in the lookup index's order: presence rows (NULL) first, then by key and seq. */
  #build(tenantId: string, collection: string, path: string): FieldList {
    const list = new FieldList();
    const rows = this.#rows.postings(tenantId, collection, path);
    for (const [value, seq] of rows) list.load(seq, value);
    return list;
  }

  /** Makes the lists match SQLite for every document version written since the last use. */
  #catchUp(): void {
    const touched = this.#touched;
    this.#touched = [];
    const reconcile = (key: string, list: FieldList, seq: number) => {
      const [, , path] = JSON.parse(key) as string[];
      const values = this.#rows.postingsOf(seq, path!);
      if (values.length === 0) list.remove(seq);
      else if (!list.has(seq))
        list.add(
          seq,
          values.filter((v): v is FieldKey => v !== null),
        );
    };
    for (const t of touched) {
      if (t.key !== undefined) {
        const list = this.#lists.get(t.key);
        if (list) reconcile(t.key, list, t.seq);
        continue;
      }
      for (const [key, list] of this.#lists) if (list.has(t.seq)) reconcile(key, list, t.seq);
    }
  }
}
