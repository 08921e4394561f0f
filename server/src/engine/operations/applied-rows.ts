import type { Db } from '../storage/database.js';
import { StatementCache } from '../storage/statement-cache.js';

/**
 * The store's side of the replicated log: the last sequence of each shard stream this node applied
 * (`cluster_applied(shard, seq)`), written in the transaction of the operation it records, so a restart resumes after
 * it.
 *
 * @example const applied = new AppliedRows(db); applied.record(3, 42); applied.last(3); // 42
 */
export class AppliedRows {
  readonly #sql: StatementCache;

  constructor(db: Db) {
    this.#sql = new StatementCache(db);
  }

  /** The last sequence of shard `shard` applied here (0: none). */
  last(shard: number): number {
    const seq = this.#sql.get('SELECT seq FROM cluster_applied WHERE shard = ?').pluck().get(shard) as
      number | undefined;
    return seq ?? 0;
  }

  /** Records `seq` as the last applied of `shard`; call inside the transaction that applies it. */
  record(shard: number, seq: number): void {
    this.#sql
      .get(
        'INSERT INTO cluster_applied (shard, seq) VALUES (?, ?) ON CONFLICT (shard) DO UPDATE SET seq = excluded.seq',
      )
      .run(shard, seq);
  }

  /** The last sequence applied here of a collection-shard subject (decision 0062; 0: none). */
  lastOfSubject(subject: string): number {
    const seq = this.#sql.get('SELECT seq FROM cluster_subject_applied WHERE subject = ?').pluck().get(subject) as
      number | undefined;
    return seq ?? 0;
  }

  /** Records `seq` as the last applied of a collection-shard subject; inside the transaction that applies it. */
  recordSubject(subject: string, seq: number): void {
    this.#sql
      .get(
        'INSERT INTO cluster_subject_applied (subject, seq) VALUES (?, ?) ON CONFLICT (subject) DO UPDATE SET seq = excluded.seq',
      )
      .run(subject, seq);
  }

  /** Forgets a collection-shard subject (released: a later hold replays it from its start); inside a transaction. */
  forgetSubject(subject: string): void {
    this.#sql.get('DELETE FROM cluster_subject_applied WHERE subject = ?').run(subject);
  }

  /** Every collection-shard subject this store applied some of. */
  subjects(): string[] {
    return this.#sql.get('SELECT subject FROM cluster_subject_applied').pluck().all() as string[];
  }

  /**
   * What this store applied of the single stream of before the shards (GODB_OPS), or 0: such a store cannot join a
   * sharded cluster (its sequences mean nothing on a shard).
   */
  singleStream(): number {
    const table = this.#sql
      .get("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'cluster_applied_single_stream'")
      .get();
    if (!table) return 0;
    return (
      (this.#sql.get('SELECT COALESCE(MAX(seq), 0) FROM cluster_applied_single_stream').pluck().get() as number) ?? 0
    );
  }
}
