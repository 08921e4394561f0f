import Database from 'better-sqlite3';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The last sequence of every shard the store in `dataDir` applied, read before the engine opens it (index = shard; 0:
 * no store, or none applied). Used to decide whether a cluster node can replay the log or must restore a snapshot
 * first. A store of the single-stream version (schema 12, `cluster_applied(stream, seq)`) counts as nothing applied
 * here; the node refuses it when it opens (see NatsLog).
 *
 * @example appliedOnDisk('./data', 16) // [1234, 0, 17, …]
 */
export function appliedOnDisk(dataDir: string, shards: number): number[] {
  const applied = Array.from({ length: shards }, () => 0);
  const file = join(dataDir, 'godb.sqlite');
  if (!existsSync(file)) return applied;
  const db = new Database(file, { readonly: true });
  try {
    const columns = db.prepare("SELECT name FROM pragma_table_info('cluster_applied')").pluck().all() as string[];
    if (!columns.includes('shard')) return applied;
    for (const row of db.prepare('SELECT shard, seq FROM cluster_applied').all() as { shard: number; seq: number }[]) {
      if (row.shard < shards) applied[row.shard] = row.seq;
    }
    return applied;
  } finally {
    db.close();
  }
}

/**
 * Rows of a whole-node snapshot that belong to the node that took it, not to the cluster, removed once a node
 * restored that snapshot (before its engine opens): the mail outbox of a snapshot taken before mail was replicated
 * (migration 14; the taking node relayed its own mail then), jobs that name no node (made before jobs were replicated: they ran, and were polled, on the node
 * that took them; replicated jobs name their node and are kept, as every node holds them), tenant restores under
 * way (they name that node's folders), that node's text checkpoint files, and stored files owed a deletion (the node that took a purge deletes its
 * files). Everything else is the replicated state, taken over as it is: its applied sequence
 * (`cluster_applied`) is where this node replays from. The node id is not in the store (NODE_ID), and API keys'
 * `last_used_at` stays a per-node approximation, as it is between live nodes.
 *
 * @example dropNodeLocalRows('./data'); // after restoreSnapshot(archive, './data')
 */
export function dropNodeLocalRows(dataDir: string): { outbox: number; jobs: number } {
  const db = new Database(join(dataDir, 'godb.sqlite'));
  try {
    return db.transaction(() => {
      // The outbox is replicated since migration 14: a snapshot taken before holds the taking node's own mail only.
      const fenced = db.prepare("SELECT count(*) FROM sqlite_master WHERE name = 'cluster_fences'").pluck().get();
      const outbox = fenced ? 0 : db.prepare('DELETE FROM outbox').run().changes;
      // A snapshot taken before jobs named their node (migration 13 runs when the engine opens) holds only such jobs.
      const named = db.prepare("SELECT count(*) FROM pragma_table_info('jobs') WHERE name = 'node'").pluck().get();
      const jobs = db.prepare(`DELETE FROM jobs${named ? ' WHERE node IS NULL' : ''}`).run().changes;
      db.prepare('DELETE FROM tenant_restores').run();
      db.prepare('DELETE FROM file_deletions').run();
      // The taking node's text checkpoint files (migration 16) are not in the snapshot: forget them.
      if (db.prepare("SELECT count(*) FROM sqlite_master WHERE name = 'text_checkpoints'").pluck().get())
        db.prepare('DELETE FROM text_checkpoints').run();
      return { outbox, jobs };
    })();
  } finally {
    db.close();
  }
}
