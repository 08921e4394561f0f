import type { KV } from '@nats-io/kv';
import type { ObjectStore } from '../engine/files/object-store.js';
import { keptArchiveKey } from '../engine/snapshots/snapshots.js';

/**
 * The restore operation that names a kept archive copy (see Snapshots.keep): the copy is read by every node that
 * applies, or replays, the operation at `seq` of shard `shard`, and by no one once that place left the log.
 */
export interface KeptArchive {
  /** The copy's key in the snapshot store (`kept/<snapshot id>-<uuid>.tar`). */
  readonly archive: string;
  readonly shard: number;
  readonly seq: number;
  readonly snapshot: string;
}

const recordPrefix = 'kept.';

/** The KV key of a kept copy's record: KV keys take few characters, so its key in base64url. */
const recordKey = (archive: string) => `${recordPrefix}${Buffer.from(archive).toString('base64url')}`;

export interface KeptArchivesOptions {
  /** The KV bucket of the cluster's own records (`godb-cluster`), which keeps no TTL. */
  readonly kv: KV;
  /** The snapshot store users' snapshots and the kept copies are in (the S3 area, or `godb-tenant-snapshots`). */
  readonly store: ObjectStore;
  readonly logger: { info(obj: object, message: string): void; error(obj: object, message: string): void };
}

/**
 * The archive copies that snapshot restores keep (issue #17), and their collection. A restore operation names a copy
 * of its archive that every node reads when it applies the operation; the copy is needed for as long as some node may
 * still apply or replay it, that is until its shard of the log is truncated past it (then every live node applied it,
 * a verified cluster snapshot includes it, and a node that missed it restores that snapshot instead of replaying).
 *
 * Which operation names a copy is only known once the operation is in the log, so every node, as it applies a
 * restore, records `{ archive, shard, seq }` in `godb-cluster` under `kept.<key>` (the first record wins; they are
 * equal). The lease holder, after truncating, deletes the copies whose operation is past — the object first, then
 * its record, so that a crash between the two only leaves a record the next round finishes. A copy with no record
 * (its restore never reached the log, or every node stopped between applying it and recording it) is not collected:
 * nothing can tell it from one whose operation is still on its way.
 *
 * @example kept.record(5, 42, 'kept/snap-…-….tar', 'snap-…'); await kept.collect((shard, seq) => seq < firsts[shard]);
 */
export class KeptArchives {
  readonly #options: KeptArchivesOptions;

  constructor(options: KeptArchivesOptions) {
    this.#options = options;
  }

  /** Records which operation names a kept copy (this node applied it at `seq` of `shard`); never throws. */
  async record(shard: number, seq: number, archive: string, snapshot: string): Promise<void> {
    const { kv, logger } = this.#options;
    const key = recordKey(archive);
    const value: KeptArchive = { archive, shard, seq, snapshot };
    await kv.create(key, JSON.stringify(value)).catch(async (error: unknown) => {
      // Another node recorded it first (the usual case on all nodes but one): nothing to do.
      if (
        await kv.get(key).then(
          (entry) => entry?.operation === 'PUT',
          () => false,
        )
      )
        return;
      logger.error(
        { err: error, archive, shard, seq },
        'cluster mode: the restore operation naming a kept archive copy was not recorded; another node records it',
      );
    });
  }

  /** The recorded copies. */
  async list(): Promise<KeptArchive[]> {
    const { kv } = this.#options;
    const keys: string[] = [];
    for await (const key of await kv.keys(`${recordPrefix}>`)) keys.push(key);
    const found: KeptArchive[] = [];
    for (const key of keys) {
      const entry = await kv.get(key);
      if (entry?.operation === 'PUT') found.push(entry.json<KeptArchive>());
    }
    return found;
  }

  /**
   * Deletes the copies whose operation is `past` (its shard truncated past it, see ClusterDuties), and their
   * records, while `holding()` (the lease is still this node's); answers the keys deleted.
   */
  async collect(past: (shard: number, seq: number) => boolean, holding: () => boolean): Promise<string[]> {
    const { kv, store, logger } = this.#options;
    const deleted: string[] = [];
    for (const kept of await this.list()) {
      // Only keys of the kept copies' shape are ever deleted, whatever a record says.
      if (!keptArchiveKey.test(kept.archive) || !past(kept.shard, kept.seq) || !holding()) continue;
      await store.delete([kept.archive]);
      await kv.purge(recordKey(kept.archive));
      deleted.push(kept.archive);
      logger.info(
        { archive: kept.archive, snapshot: kept.snapshot, shard: kept.shard, seq: kept.seq },
        'cluster mode: deleted the archive copy of a restore the log was truncated past',
      );
    }
    return deleted;
  }
}
