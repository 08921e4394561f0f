/**
 * The merges of the scans of a partitioned collection (count, scroll, delete by filter; decision 0076), from the
 * answers of one live replica per shard.
 */

/** A count: each node counted the shards asked of it (PartitionRun.keep), so the counts add up. */
export const mergeCounts = (answers: readonly unknown[]): { count: number } => ({
  count: (answers as { count: number }[]).reduce((sum, a) => sum + a.count, 0),
});

/** A delete by filter: each node deleted the matching documents of the shards asked of it, through their subjects. */
export const mergeDeletes = (answers: readonly unknown[]): { success: true; deleted: number; skipped: number } => {
  const all = answers as { deleted: number; skipped: number }[];
  return {
    success: true,
    deleted: all.reduce((sum, a) => sum + a.deleted, 0),
    skipped: all.reduce((sum, a) => sum + a.skipped, 0),
  };
};

interface ScrollPage {
  readonly documents: readonly { readonly id: string }[];
  readonly next_cursor?: string;
}

const byId = (a: { id: string }, b: { id: string }) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/**
 * A scroll page: each node answered its first `limit` matching documents after the cursor in id order, over every
 * shard it holds, and read up to its own next cursor (a short page, past many rows the filter rejects, stops early).
 * The merged page is the first `limit` documents in id order, none past the lowest of those cursors: every document
 * before it was seen by the node asked for its shard, so the page is what one node holding everything answers. Its
 * cursor is, as there, the last id it read (base64url): the next page asks every shard again from it.
 *
 * @example mergeScroll([{ documents: [{ id: 'a' }] }, { documents: [{ id: 'b' }] }], 10); // a, b, no cursor
 */
export function mergeScroll(answers: readonly unknown[], limit: number): ScrollPage {
  const pages = answers as ScrollPage[];
  const ends = pages.flatMap((p) => (p.next_cursor === undefined ? [] : [decode(p.next_cursor)]));
  const bound = ends.length > 0 ? ends.reduce((a, b) => (a < b ? a : b)) : undefined;
  const seen = new Map<string, ScrollPage['documents'][number]>();
  for (const page of pages) for (const doc of page.documents) if (!seen.has(doc.id)) seen.set(doc.id, doc);
  const within = [...seen.values()].filter((doc) => bound === undefined || doc.id <= bound).sort(byId);
  if (within.length > limit) {
    const documents = within.slice(0, limit);
    return { documents, next_cursor: encode(documents[limit - 1]?.id ?? '') };
  }
  return { documents: within, ...(bound !== undefined && { next_cursor: encode(bound) }) };
}

const encode = (id: string) => Buffer.from(id, 'utf8').toString('base64url');
const decode = (cursor: string) => Buffer.from(cursor, 'base64url').toString('utf8');
