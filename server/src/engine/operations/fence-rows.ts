import type { Db } from '../storage/database.js';
import { StatementCache } from '../storage/statement-cache.js';

/**
 * Fencing of the singleton work in cluster mode: an operation made by a lease holder carries the lease's token (the
 * revision at which it took the lease; a later holder's is always larger), and applying it first asks `admit`: a
 * token older than the newest one already applied for that duty is refused, so a stalled former holder cannot act
 * after a new holder took over. The newest token is a row of the store, written in the operation's transaction, so
 * every node decides alike, in log order.
 *
 * @example if (!fences.admit('mail-relay', op.token)) return { fenced: true };
 */
export class Fences {
  readonly #sql: StatementCache;

  constructor(db: Db) {
    this.#sql = new StatementCache(db);
  }

  /** True (and `token` recorded as the newest) unless a newer token was applied for `duty` already. */
  admit(duty: string, token: number): boolean {
    const newest = this.#sql.get('SELECT token FROM cluster_fences WHERE duty = ?').pluck().get(duty) as
      number | undefined;
    if (newest !== undefined && token < newest) return false;
    if (newest !== token) {
      this.#sql.get('INSERT OR REPLACE INTO cluster_fences (duty, token) VALUES (?, ?)').run(duty, token);
    }
    return true;
  }
}
