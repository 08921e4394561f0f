import { createError, inputLimits } from '@godb/contract';
import type { Db } from '../storage/database.js';
import { StatementCache } from '../storage/statement-cache.js';
import type { SparseVectorValue } from './sparse-input.js';
import { SparseListsBuild, sliceRows } from './sparse-lists-build.js';
import type { SparseLists } from './sparse-lists.js';

/** A write the in-memory lists have not seen yet: a document version posted or unposted under a name. */
interface Touched {
  readonly tenantId: string;
  readonly collection: string;
  readonly name: string;
  readonly seq: number;
}

const listKey = (tenantId: string, collection: string, name: string) => JSON.stringify([tenantId, collection, name]);

/**
 * The inverted index of sparse vectors (issue #42, decisions 0058 and 0070). In SQLite, one posting (term, document,
 * value) per non-zero, clustered by (tenant, collection, name, term): written in the document write's transaction
 * (so it follows the operation log, restarts and snapshots like the documents it is derived from), removed when the
 * version leaves the indexes (document-store.ts #unindex). Queries read in-memory posting lists (SparseLists), one
 * per (tenant, collection, name), built from SQLite on the name's first query (after a start, a restore or an
 * eviction) and kept in step by the writes: each post and unpost is noted, and before the next query every noted
 * document is looked up in SQLite (one indexed read) and the lists made to match — so a write that rolled back is
 * undone by construction, with no commit hook, and what a query sees is what SQLite holds.
 */
export class SparsePostings {
  static readonly #byDb = new WeakMap<Db, SparsePostings>();
  readonly #db: Db;
  readonly #sql: StatementCache;
  readonly #lists = new Map<string, SparseLists>();
  /** Lists being read from SQLite a slice per turn (decision 0075), with the promise of their end. */
  readonly #builds = new Map<string, { build: SparseListsBuild; finished: Promise<void> }>();
  #touched: Touched[] = [];

  /** The postings of a store, made once (their statements are prepared once). */
  static of(db: Db): SparsePostings {
    let postings = SparsePostings.#byDb.get(db);
    if (!postings) SparsePostings.#byDb.set(db, (postings = new SparsePostings(db)));
    return postings;
  }

  constructor(db: Db) {
    this.#db = db;
    this.#sql = new StatementCache(db);
  }

  /** Posts a document version's sparse vectors. */
  post(tenantId: string, collection: string, seq: number, vectors: Readonly<Record<string, SparseVectorValue>>): void {
    const insert = this.#sql.get(
      'INSERT INTO sparse_postings (tenant_id, collection, name, term, doc_seq, value) VALUES (?, ?, ?, ?, ?, ?)',
    );
    for (const [name, { indices, values }] of Object.entries(vectors)) {
      indices.forEach((term, i) => insert.run(tenantId, collection, name, term, seq, values[i]!));
      this.#note(tenantId, collection, name, seq);
    }
  }

  /** Takes a document version's postings out (it left the indexes). */
  unpost(tenantId: string, seq: number): void {
    const names = this.#sql
      .get('DELETE FROM sparse_postings WHERE doc_seq = ? RETURNING collection, name')
      .raw()
      .all(seq) as [string, string][];
    const seen = new Set<string>();
    for (const [collection, name] of names) {
      const key = listKey(tenantId, collection, name);
      if (seen.has(key)) continue;
      seen.add(key);
      this.#note(tenantId, collection, name, seq);
    }
  }

  /** The tenant's postings were rewritten in bulk (a restore): its lists are built again on their next query. */
  forget(tenantId: string): void {
    for (const map of [this.#lists, this.#builds])
      for (const key of [...map.keys()]) if ((JSON.parse(key) as string[])[0] === tenantId) map.delete(key);
    this.#touched = this.#touched.filter((t) => t.tenantId !== tenantId);
  }

  #note(tenantId: string, collection: string, name: string, seq: number): void {
    // Lists not built yet read SQLite when they are: nothing to note for them. A build under way settles its notes.
    const key = listKey(tenantId, collection, name);
    if (this.#lists.has(key) || this.#builds.has(key)) this.#touched.push({ tenantId, collection, name, seq });
  }

  /**
   * The posting lists of a sparse vector name, in step with SQLite: built on first use, caught up with the writes
   * noted since the last query. A query touching more than inputLimits.sparseQueryPostings postings is refused with a
   * 400 naming `field` (counted from the lists' lengths), since the top-k is one synchronous pass that must stay short.
   */
  lists(tenantId: string, collection: string, name: string): SparseLists {
    const key = listKey(tenantId, collection, name);
    let lists = this.#lists.get(key);
    if (!lists) {
      // Built here and now (the rest of a build under way, if one is).
      const build = this.#builds.get(key)?.build ?? this.#newBuild(tenantId, collection, name);
      while (!build.step());
      lists = this.#install(key, build);
    }
    if (this.#touched.length > 0 && !this.#db.inTransaction) this.#catchUp();
    return lists;
  }

  /**
   * The same lists for a query (decision 0075): when they are not built yet, they are read from SQLite a slice per
   * turn of the event loop while this waits, so other requests (/healthz among them) are served during the build;
   * every query asking meanwhile waits for the same build.
   */
  async ready(tenantId: string, collection: string, name: string): Promise<SparseLists> {
    const key = listKey(tenantId, collection, name);
    // Again when the build was dropped before its end (a restore forgot the tenant's lists).
    while (!this.#lists.has(key))
      await (this.#builds.get(key) ?? this.#start(key, tenantId, collection, name)).finished;
    return this.lists(tenantId, collection, name);
  }

  #start(key: string, tenantId: string, collection: string, name: string) {
    const build = this.#newBuild(tenantId, collection, name);
    const finished = new Promise<void>((resolve, reject) => {
      const slice = () => {
        if (this.#builds.get(key)?.build !== build || this.#lists.has(key)) return resolve();
        try {
          if (!build.step()) return void setImmediate(slice);
          this.#install(key, build);
          resolve();
        } catch (error) {
          this.#builds.delete(key);
          reject(error as Error);
        }
      };
      setImmediate(slice);
    });
    const started = { build, finished };
    this.#builds.set(key, started);
    return started;
  }

  /**
   * A build of a name's lists from SQLite, a slice at a time in the table's order (term, seq), resuming after the last
   * (term, seq) read, through the highest seq posted now (every later write is noted, and settled at the end).
   */
  #newBuild(tenantId: string, collection: string, name: string): SparseListsBuild {
    const through = (this.#sql.get('SELECT max(doc_seq) FROM sparse_postings').pluck().get() as number | null) ?? 0;
    const slice = this.#sql.get(
      `SELECT term, doc_seq, value FROM sparse_postings
       WHERE tenant_id = ? AND collection = ? AND name = ? AND (term, doc_seq) > (?, ?)
       ORDER BY term, doc_seq LIMIT ${sliceRows}`,
    );
    return new SparseListsBuild(
      through,
      (term, seq) => slice.raw().all(tenantId, collection, name, term, seq) as [number, number, number][],
    );
  }

  /** A build's lists in use, with the writes noted during the build applied. */
  #install(key: string, build: SparseListsBuild): SparseLists {
    this.#builds.delete(key);
    const mine = this.#touched.filter((t) => listKey(t.tenantId, t.collection, t.name) === key);
    if (mine.length > 0) {
      this.#touched = this.#touched.filter((t) => listKey(t.tenantId, t.collection, t.name) !== key);
      const read = this.#sql.get(
        'SELECT term, value FROM sparse_postings WHERE doc_seq = ? AND name = ? ORDER BY term',
      );
      build.settle(mine.map(({ seq, name }) => ({ seq, rows: read.raw().all(seq, name) as [number, number][] })));
    }
    this.#lists.set(key, build.lists);
    return build.lists;
  }

  /** Refuses a query whose posting lists hold more than the budget. */
  checkBudget(lists: SparseLists, name: string, query: SparseVectorValue, field: string): void {
    let touched = 0;
    for (const term of query.indices) touched += lists.terms.get(term)?.length ?? 0;
    const budget = inputLimits.sparseQueryPostings;
    if (touched > budget)
      throw createError(
        'VALIDATION_FAILED',
        {
          detail: `${field} touches ${touched} postings of sparse vector "${name}", more than ${budget} one query may read: use fewer or rarer terms (drop the most common ones, or the smallest weights).`,
        },
        { field },
      );
  }

  /** Makes the lists match SQLite for every document version written since the last query. */
  #catchUp(): void {
    // Writes to lists still being built wait for the build's end (settle).
    const touched = this.#touched.filter((t) => !this.#builds.has(listKey(t.tenantId, t.collection, t.name)));
    this.#touched = this.#touched.filter((t) => this.#builds.has(listKey(t.tenantId, t.collection, t.name)));
    touched.sort((a, b) => a.seq - b.seq);
    const read = this.#sql.get('SELECT term, value FROM sparse_postings WHERE doc_seq = ? AND name = ? ORDER BY term');
    const done = new Set<string>();
    for (const { tenantId, collection, name, seq } of touched) {
      const key = listKey(tenantId, collection, name);
      const lists = this.#lists.get(key);
      if (!lists || done.has(`${key}${seq}`)) continue;
      done.add(`${key}${seq}`);
      const rows = read.raw().all(seq, name) as [number, number][];
      // A seq is posted once (when its version is written) and unposted once: present above the highest seq held is
      // a new version; absent at or below it, one that left. Anything else is a write that rolled back.
      if (rows.length > 0 && seq > lists.maxSeq)
        lists.add(
          seq,
          rows.map((r) => r[0]),
          rows.map((r) => r[1]),
        );
      else if (rows.length === 0 && seq <= lists.maxSeq) lists.remove(seq);
    }
  }
}

/**
 * Posts the sparse vectors of the tenant's live documents with a seq in (`after`, `through`] from their stored fields
 * (a restore, which brings documents and not postings). The tenant's in-memory lists are built again from them.
 */
export function indexSparseRange(db: Db, tenantId: string, after: number, through: number): void {
  SparsePostings.of(db).forget(tenantId);
  db.prepare(
    `INSERT INTO sparse_postings (tenant_id, collection, name, term, doc_seq, value)
       SELECT d.tenant_id, d.primary_table, v.key, i.value, d.seq,
              json_extract(v.value, '$.values[' || i.key || ']')
       FROM documents d NOT INDEXED, json_each(d.fields, '$.sparse_vectors') v, json_each(v.value, '$.indices') i
       WHERE d.seq > :after AND d.seq <= :through AND d.tenant_id = :tenant AND d.deleted_at IS NULL
         AND d.superseded = 0 AND json_type(d.fields, '$.sparse_vectors') = 'object'`,
  ).run({ tenant: tenantId, after, through });
}
