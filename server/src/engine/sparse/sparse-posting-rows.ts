import { createError, inputLimits } from '@godb/contract';
import type { Db } from '../storage/database.js';
import { StatementCache } from '../storage/statement-cache.js';
import type { SparseVectorValue } from './sparse-input.js';
import { PostingList, SparseLists } from './sparse-lists.js';

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
    for (const key of [...this.#lists.keys()])
      if ((JSON.parse(key) as string[])[0] === tenantId) this.#lists.delete(key);
    this.#touched = this.#touched.filter((t) => t.tenantId !== tenantId);
  }

  #note(tenantId: string, collection: string, name: string, seq: number): void {
    // Lists not built yet read SQLite when they are: nothing to note for them.
    if (this.#lists.has(listKey(tenantId, collection, name))) this.#touched.push({ tenantId, collection, name, seq });
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
      lists = this.#build(tenantId, collection, name);
      this.#lists.set(key, lists);
    }
    if (this.#touched.length > 0 && !this.#db.inTransaction) this.#catchUp();
    return lists;
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

  /** Reads every posting of a name from SQLite, a term's list at a time in seq order (the table's clustering). */
  #build(tenantId: string, collection: string, name: string): SparseLists {
    const lists = new SparseLists();
    const where = 'WHERE tenant_id = ? AND collection = ? AND name = ?';
    // The lengths first (an index-only count), so each list is allocated once at its size.
    const counts = this.#sql
      .get(`SELECT term, count(*) FROM sparse_postings ${where} GROUP BY term`)
      .raw()
      .all(tenantId, collection, name) as [number, number][];
    for (const [term, count] of counts) lists.terms.set(term, new PostingList(Math.max(4, count)));
    const seqs = new Set<number>();
    let previous = -1;
    let list: PostingList | undefined;
    for (const [term, seq, value] of this.#sql
      .get(`SELECT term, doc_seq, value FROM sparse_postings ${where} ORDER BY term, doc_seq`)
      .raw()
      .iterate(tenantId, collection, name) as IterableIterator<[number, number, number]>) {
      if (term !== previous) {
        list = lists.terms.get(term);
        previous = term;
      }
      list!.push(seq, value);
      seqs.add(seq);
      if (seq > lists.maxSeq) lists.maxSeq = seq;
      lists.postings += 1;
    }
    lists.docs = seqs.size;
    return lists;
  }

  /** Makes the lists match SQLite for every document version written since the last query. */
  #catchUp(): void {
    const touched = this.#touched;
    this.#touched = [];
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
