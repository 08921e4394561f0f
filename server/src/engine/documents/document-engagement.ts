import type { Db } from '../storage/database.js';
import type { DocumentReads } from './document-reads.js';
import type { DocumentStore } from './document-store.js';
import type { EngagementStore } from './engagement-store.js';
import type { DocumentFields, Viewer } from './types.js';

/** Counters add to the stored totals; every other engagement field replaces the stored value. */
export const accumulatingEngagement: readonly string[] = [
  'clicks',
  'likes',
  'dislikes',
  'dwell_time',
  'views',
  'engagements',
  'shares',
  'bookmarks',
  'comments',
];

/** Engagement with a document: totals kept in its fields, and each event kept with the user id. */
export class DocumentEngagement {
  readonly #deps: { db: Db; store: DocumentStore; reads: DocumentReads; engagement: EngagementStore };

  constructor(deps: { db: Db; store: DocumentStore; reads: DocumentReads; engagement: EngagementStore }) {
    this.#deps = deps;
  }

  /** Records engagement: counters add up, other fields are set; answers the fields it updated. */
  engage(viewer: Viewer, id: string, engagement: Record<string, unknown>): string[] {
    const { db, store, reads } = this.#deps;
    const row = reads.readable(viewer, id);
    const fields = JSON.parse(row.fields) as DocumentFields;
    const stored: Record<string, unknown> = { ...(fields.engagement ?? {}) };
    const updated = Object.keys(engagement).filter((k) => engagement[k] !== undefined);
    for (const name of updated) {
      const value = engagement[name];
      stored[name] =
        accumulatingEngagement.includes(name) && typeof value === 'number' ? Number(stored[name] ?? 0) + value : value;
    }
    const now = reads.now();
    db.transaction(() => {
      store.updateFields(
        row.seq,
        { ...fields, engagement: stored, ...(engagement.feedback !== undefined && { feedback: engagement.feedback }) },
        now,
      );
      this.#deps.engagement.record(viewer.tenantId, row.id, viewer.userId, now, engagement);
    })();
    return updated;
  }
}
