import type { Db } from '../storage/database.js';
import { StatementCache } from '../storage/statement-cache.js';

/**
 * The store's side of the replicated log: the last sequence of each stream this node applied (`cluster_applied`),
 * written in the transaction of the operation it records, so a restart resumes after it.
 *
 * @example const applied = new AppliedRows(db); applied.record('godb', 42); applied.last('godb'); // 42
 */
export class AppliedRows {
  readonly #sql: StatementCache;

  constructor(db: Db) {
    this.#sql = new StatementCache(db);
  }

  /** The last sequence of `stream` applied here (0: none). */
  last(stream: string): number {
    const seq = this.#sql.get('SELECT seq FROM cluster_applied WHERE stream = ?').pluck().get(stream) as
      number | undefined;
    return seq ?? 0;
  }

  /** Records `seq` as the last applied of `stream`; call inside the transaction that applies it. */
  record(stream: string, seq: number): void {
    this.#sql
      .get(
        'INSERT INTO cluster_applied (stream, seq) VALUES (?, ?) ON CONFLICT (stream) DO UPDATE SET seq = excluded.seq',
      )
      .run(stream, seq);
  }
}
