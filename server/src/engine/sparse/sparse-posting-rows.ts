import { createError, inputLimits } from '@godb/contract';
import type { Db } from '../storage/database.js';
import { StatementCache } from '../storage/statement-cache.js';
import type { SparseVectorValue } from './sparse-input.js';

/**
 * The inverted index of sparse vectors (issue #42, decision 0058), in SQLite: one posting (term, document, value) per
 * non-zero, clustered by (tenant, collection, name, term) so a term's posting list is one range read. Written in the
 * document write's transaction (so it follows the operation log, restarts and snapshots like the documents it is
 * derived from), removed when the version leaves the indexes (document-store.ts #unindex).
 */
export class SparsePostings {
  static readonly #byDb = new WeakMap<Db, SparsePostings>();
  readonly #sql: StatementCache;

  /** The postings of a store, made once (their statements are prepared once). */
  static of(db: Db): SparsePostings {
    let postings = SparsePostings.#byDb.get(db);
    if (!postings) SparsePostings.#byDb.set(db, (postings = new SparsePostings(db)));
    return postings;
  }

  constructor(db: Db) {
    this.#sql = new StatementCache(db);
  }

  /** Posts a document version's sparse vectors. */
  post(tenantId: string, collection: string, seq: number, vectors: Readonly<Record<string, SparseVectorValue>>): void {
    const insert = this.#sql.get(
      'INSERT INTO sparse_postings (tenant_id, collection, name, term, doc_seq, value) VALUES (?, ?, ?, ?, ?, ?)',
    );
    for (const [name, { indices, values }] of Object.entries(vectors))
      indices.forEach((term, i) => insert.run(tenantId, collection, name, term, seq, values[i]!));
  }

  /**
   * The exact dot product of the query with every document version that shares a term with it (term at a time: each
   * query term's posting list is read once and accumulated). Versions no longer live were unposted; the caller still
   * applies the access rule and the filters. The lists are counted first (an index range count, far cheaper than
   * reading them): a query touching more than inputLimits.sparseQueryPostings is refused with a 400 naming `field`,
   * since the reading is one synchronous pass (so no write lands half-way through it) that must stay short.
   */
  scores(
    tenantId: string,
    collection: string,
    name: string,
    query: SparseVectorValue,
    field: string,
  ): Map<number, number> {
    const where = 'WHERE tenant_id = ? AND collection = ? AND name = ? AND term = ?';
    const count = this.#sql.get(`SELECT count(*) FROM sparse_postings ${where}`);
    let touched = 0;
    for (const term of query.indices) touched += (count.pluck().get(tenantId, collection, name, term) as number) ?? 0;
    const budget = inputLimits.sparseQueryPostings;
    if (touched > budget)
      throw createError(
        'VALIDATION_FAILED',
        {
          detail: `${field} touches ${touched} postings of sparse vector "${name}", more than ${budget} one query may read: use fewer or rarer terms (drop the most common ones, or the smallest weights).`,
        },
        { field },
      );
    const read = this.#sql.get(`SELECT doc_seq, value FROM sparse_postings ${where}`);
    const acc = new Map<number, number>();
    query.indices.forEach((term, i) => {
      const weight = query.values[i]!;
      // all() rather than iterate(): one call per posting list, not per posting.
      for (const [seq, value] of read.raw().all(tenantId, collection, name, term) as [number, number][])
        acc.set(seq, (acc.get(seq) ?? 0) + weight * value);
    });
    return acc;
  }
}

/**
 * Posts the sparse vectors of the tenant's live documents with a seq in (`after`, `through`] from their stored fields
 * (a restore, which brings documents and not postings).
 */
export function indexSparseRange(db: Db, tenantId: string, after: number, through: number): void {
  db.prepare(
    `INSERT INTO sparse_postings (tenant_id, collection, name, term, doc_seq, value)
       SELECT d.tenant_id, d.primary_table, v.key, i.value, d.seq,
              json_extract(v.value, '$.values[' || i.key || ']')
       FROM documents d NOT INDEXED, json_each(d.fields, '$.sparse_vectors') v, json_each(v.value, '$.indices') i
       WHERE d.seq > :after AND d.seq <= :through AND d.tenant_id = :tenant AND d.deleted_at IS NULL
         AND d.superseded = 0 AND json_type(d.fields, '$.sparse_vectors') = 'object'`,
  ).run({ tenant: tenantId, after, through });
}
