import type { Db } from '../storage/database.js';
import { StatementCache } from '../storage/statement-cache.js';

/** The SQL of engagement events: who engaged with which document, read by recommendations and learning to rank. */
export class EngagementStore {
  readonly #sql: StatementCache;

  constructor(db: Db) {
    this.#sql = new StatementCache(db);
  }

  record(tenantId: string, docId: string, userId: string, at: number, payload: unknown): void {
    this.#sql
      .get('INSERT INTO engagement_events (tenant_id, doc_id, user_id, at, payload) VALUES (?, ?, ?, ?, ?)')
      .run(tenantId, docId, userId, at, JSON.stringify(payload));
  }

  /** Events recorded for a document id (every version). */
  count(tenantId: string, docId: string): number {
    return this.#sql
      .get('SELECT count(*) FROM engagement_events WHERE tenant_id = ? AND doc_id = ?')
      .pluck()
      .get(tenantId, docId) as number;
  }

  /** Document ids a user engaged with. */
  docsOf(tenantId: string, userId: string): string[] {
    return this.#sql
      .get('SELECT DISTINCT doc_id FROM engagement_events WHERE tenant_id = ? AND user_id = ?')
      .pluck()
      .all(tenantId, userId) as string[];
  }

  /** The users who engaged with each document id of a tenant. */
  usersByDoc(tenantId: string): Map<string, Set<string>> {
    const usersOf = new Map<string, Set<string>>();
    for (const row of this.#sql
      .get('SELECT DISTINCT doc_id, user_id FROM engagement_events WHERE tenant_id = ?')
      .all(tenantId) as { doc_id: string; user_id: string }[]) {
      const users = usersOf.get(row.doc_id) ?? new Set<string>();
      users.add(row.user_id);
      usersOf.set(row.doc_id, users);
    }
    return usersOf;
  }

  /** Which of these document rows (seqs) anyone engaged with. */
  engagedAmong(tenantId: string, seqs: readonly number[]): Set<number> {
    return new Set(
      this.#sql
        .get(
          'SELECT DISTINCT d.seq FROM engagement_events e JOIN documents d ON d.tenant_id = e.tenant_id AND d.id = e.doc_id WHERE e.tenant_id = ? AND d.seq IN (SELECT value FROM json_each(?))',
        )
        .pluck()
        .all(tenantId, JSON.stringify(seqs)) as number[],
    );
  }
}
