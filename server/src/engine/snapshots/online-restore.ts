import Database from 'better-sqlite3';
import { createError } from '@godb/contract';
import { randomUUID } from 'node:crypto';
import { createReadStream, existsSync, mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import type { Readable } from 'node:stream';
import { unixSeconds, type Clock } from '../clock.js';
import type { VectorIndexes } from '../vectors/vector-index.js';
import type { DocumentFiles } from '../files/document-files.js';
import { FileDeletions } from '../files/file-deletions.js';
import { migrate, type Db } from '../storage/database.js';
import { migrations } from '../storage/migrations.js';
import { transaction } from '../storage/transaction.js';
import { syncFoldersUpTo, syncTree } from '../storage/durable-files.js';
import type { TextIndex } from '../text/text-index.js';
import { checkTenantPaths, unpackSnapshot } from './restore.js';
import type { SnapshotManifest } from './snapshots.js';
import {
  attachSnapshot,
  clashesSince,
  clashReader,
  copyDirectory,
  deleteDocumentIndexRows,
  deleteMarker,
  deleteTenantRows,
  detachSnapshot,
  dropGenerations,
  ensureTenant,
  fileKeyReader,
  firstNonTable,
  highestSeq,
  indexGeoRange,
  nodeHolds,
  reserveSeqs,
  restoreDirOf,
  restoreMarkers,
  restoresFrom,
  seqBounds,
  seqsOccupied,
  seqTables,
  snapshotRowCount,
  tableBounds,
  tenantOwnTables,
  tenantRowCount,
  tenantsOf,
  unnamed,
  writeMarker,
  type SeqTable,
  type TenantRestoreRow,
} from './restore-rows.js';
import { SliceSizer, walkRanges, type Bounds } from './slices.js';
import { copyTenantRange, tenantRowidBounds, tenantTables } from './tenant-rows.js';

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

const notRestorable = (reason: string) => createError('SNAPSHOT_NOT_RESTORABLE', { reason });

/** Who restores: a tenant admin (its own tenant's snapshots only) or the super admin (any snapshot). */
export interface Restorer {
  /** The tenant admin's tenant; undefined for the super admin. */
  readonly tenantId: string | undefined;
  /** Tenants that are the node's own, not data (the super admin's): a node holding only these is empty. */
  readonly keepTenants: readonly string[];
  /** Whether the snapshot's HNSW files may be loaded (false for an archive a tenant admin uploaded). */
  readonly trustIndexFiles: boolean;
}

/** A snapshot unpacked and checked, waiting to be applied (or discarded). */
export interface StagedSnapshot {
  readonly manifest: SnapshotManifest;
  /** The folder it was unpacked into. */
  readonly dir: string;
  /** The tenants the restore replaces (a tenant snapshot: one). */
  readonly tenants: readonly string[];
  readonly keepTenants: readonly string[];
  readonly trustIndexFiles: boolean;
  /** Uploaded files it holds, for progress. */
  readonly files: number;
  discard(): void;
}

/** What a restore did. */
export interface RestoreReport {
  readonly tenants: readonly string[];
  readonly documents: number;
  /**
   * Whether sequence numbers were kept (so the snapshot's index files were used as they are); false when another
   * tenant of this node already used some of them, and the rows were renumbered and the indexes will be rebuilt.
   */
  readonly seqsPreserved: boolean;
}

export interface OnlineRestoreOptions {
  readonly db: Db;
  readonly text: TextIndex;
  readonly vectors: VectorIndexes;
  readonly files: DocumentFiles | null;
  readonly dataDir: string;
  readonly clock: Clock;
  /**
   * At most this many rows (or seqs of a range) deleted, copied or indexed per transaction of a tenant restore; each
   * is sized to ~40 ms of work below this (SliceSizer, timed with `clock`), so other requests run between.
   */
  readonly sliceRows: number;
  /** How a tenant restore that fails part way is tried again; default three more times, each at the next turn. */
  readonly retry?: RestoreRetry;
}

/** How a tenant restore that fails part way is tried again (the engine keeps no timers: `wait` is given). */
export interface RestoreRetry {
  /** Attempts after the first. */
  readonly retries: number;
  /** Resolves when attempt `attempt` (1 for the first retry) may start: the backoff. */
  readonly wait: (attempt: number) => Promise<void>;
}

const defaultRetry: RestoreRetry = { retries: 3, wait: () => nextTurn() };

const currentVersion = migrations[migrations.length - 1]!.version;

/**
 * Restores snapshots into a running node (`POST /api/v1/snapshots/restore`): a tenant snapshot replaces that
 * tenant's data and nothing else; a whole-node snapshot fills an empty node. In two steps: `stage` unpacks the
 * archive and checks every checksum (a damaged snapshot is refused before anything changes), then `apply` puts the
 * uploaded files into the files store and replaces the rows.
 *
 * A tenant's rows are replaced in short transactions (each sized to ~40 ms of work by SliceSizer, at most
 * `RESTORE_SLICE_ROWS` rows: the old rows deleted, the snapshot's copied by rowid range, the text and geo indexes
 * filled from them by seq range), with other tenants' requests served between them,
 * so a restore of a million documents never holds the event loop or the store's write lock for long. The tenant is
 * fenced meanwhile (its requests answer 503 `TENANT_RESTORING`, so nothing sees half of it), and a row of
 * `tenant_restores` written before the first transaction and deleted with the last names the unpacked snapshot: a
 * restore that fails part way is tried again (`retry`), and one cut short by a crash is finished when the server
 * starts (`resumePending`) or when the tenant is restored again, never left half done. A whole-node restore, into a
 * node with no data, copies the directory in one transaction, then restores each of its tenants the same way.
 *
 * Sequence numbers are preserved when no other tenant uses them (always on the node the snapshot came from: seqs
 * are never reused), so the snapshot's HNSW files match their rows and are loaded as they are; otherwise the rows
 * are renumbered past the node's highest (that range reserved first) and the vector indexes are rebuilt from them
 * in the background.
 */
export class OnlineRestore {
  readonly #options: OnlineRestoreOptions;
  /** Tenants being restored (fenced), with the snapshot each is restored from. */
  readonly #fenced = new Map<string, string>();
  /**
   * Tenants whose rows are being replaced (a `tenant_restores` row exists: from after the drain until the end, or
   * until a later restore of the tenant finishes one that failed), with the snapshot.
   */
  readonly #replacing = new Map<string, string>();
  /** The restores a crash cut short, finishing (see resumePending). */
  #resuming: Promise<void> = Promise.resolve();

  constructor(options: OnlineRestoreOptions) {
    this.#options = options;
    const markers = this.#markers();
    for (const row of markers) {
      this.#fenced.set(row.tenant_id, row.snapshot_id);
      this.#replacing.set(row.tenant_id, row.snapshot_id);
      // Its index files describe rows the restore replaces: gone now, so no warm-up loads or builds from them.
      rmSync(this.#indexDir(row.tenant_id), { recursive: true, force: true });
    }
    // Unpacked snapshots no restore names any more (a crash while one was checked, or before its job began).
    const area = join(options.dataDir, 'snapshots');
    const named = new Set(markers.map((row) => join(options.dataDir, row.dir)));
    if (existsSync(area))
      for (const name of readdirSync(area))
        if (name.startsWith('.restore-') && !named.has(join(area, name)))
          rmSync(join(area, name), { recursive: true, force: true });
  }

  /**
   * The snapshot a tenant is being restored from, or undefined when it is not being restored; without a tenant, the
   * snapshot of any tenant restore under way (a whole-node snapshot then would hold half of it).
   */
  restoring(tenantId?: string): string | undefined {
    return tenantId === undefined ? this.#fenced.values().next().value : this.#fenced.get(tenantId);
  }

  /**
   * The snapshot a tenant's rows are being replaced from — they are half deleted or half copied, so nothing may be
   * derived from them (see FencedVectorIndexes) — or undefined.
   */
  replacing(tenantId: string): string | undefined {
    return this.#replacing.get(tenantId);
  }

  /**
   * Finishes the tenant restores a crash cut short (each from the snapshot it had unpacked, kept until done); their
   * tenants stay fenced until then. `failed` hears of one that cannot finish (RESTORE_INTERRUPTED: its unpacked
   * snapshot is gone, or its retries failed): that tenant stays fenced until a restore of it finishes.
   */
  resumePending(failed: (tenantId: string, error: unknown) => void = () => {}): Promise<void> {
    this.#resuming = (async () => {
      for (const row of this.#markers()) {
        try {
          await this.#finish(
            {
              tenant: row.tenant_id,
              snapshotId: row.snapshot_id,
              dir: join(this.#options.dataDir, row.dir),
              trustIndexFiles: row.trust_index_files === 1,
            },
            () => {},
          );
        } catch (error) {
          failed(row.tenant_id, error);
        }
      }
    })();
    return this.#resuming;
  }

  /** Whether a tenant restore under way restores from the unpacked snapshot `dir` (relative to the data folder). */
  #named(dir: string): boolean {
    return restoresFrom(this.#options.db, dir);
  }

  #indexDir(tenantId: string): string {
    return join(this.#options.dataDir, 'vectors', encodeURIComponent(tenantId));
  }

  /** The fence a tenant has when no restore of it runs: that of a restore left unfinished, else none. */
  #refence(tenantId: string): void {
    const pending = this.#replacing.get(tenantId);
    if (pending === undefined) this.#fenced.delete(tenantId);
    else this.#fenced.set(tenantId, pending);
  }

  /** Records that `tenant` is being restored from `staged`: its `tenant_restores` row, before the first slice. */
  #mark(staged: StagedSnapshot, tenant: string): void {
    const { db, clock, dataDir } = this.#options;
    writeMarker(db, {
      tenantId: tenant,
      snapshotId: staged.manifest.id,
      dir: relative(dataDir, staged.dir),
      trustIndexFiles: staged.trustIndexFiles,
      startedAt: unixSeconds(clock),
    });
  }

  #markers(): TenantRestoreRow[] {
    return restoreMarkers(this.#options.db);
  }

  /**
   * Unpacks and checks a snapshot archive for `restorer`: refused (`SNAPSHOT_CORRUPT`, `SNAPSHOT_NOT_RESTORABLE`,
   * `SNAPSHOT_NODE_NOT_EMPTY`) before anything changes.
   *
   * @example const staged = await restore.stage(archive, { tenantId }); await restore.apply(staged);
   */
  async stage(archive: Readable, restorer: Restorer): Promise<StagedSnapshot> {
    const dir = join(this.#options.dataDir, 'snapshots', `.restore-${randomUUID()}`);
    mkdirSync(dir, { recursive: true });
    const discard = () => rmSync(dir, { recursive: true, force: true });
    try {
      const manifest = await unpackSnapshot(archive, dir);
      checkTenantPaths(manifest);
      const scope = manifest.scope ?? 'node';
      if (manifest.schema_version > currentVersion)
        throw notRestorable(
          `it was taken by a newer GoDB (schema ${manifest.schema_version}; this one has ${currentVersion})`,
        );
      const database = join(dir, scope === 'tenant' ? 'tenant.sqlite' : 'godb.sqlite');
      migrateFile(database);
      let tenants: string[];
      if (scope === 'tenant') {
        const tenant = manifest.tenant_id ?? '';
        if (restorer.tenantId !== undefined && restorer.tenantId !== tenant)
          throw notRestorable(
            'it holds another tenant’s data; a tenant admin restores only its own tenant’s snapshots',
          );
        requireTables(database);
        tenants = [tenant];
      } else {
        if (restorer.tenantId !== undefined)
          throw notRestorable('it is a whole-node snapshot, which only the super admin restores');
        this.#requireEmpty(restorer.keepTenants);
        tenants = tenantsOf(database).filter((id) => !restorer.keepTenants.includes(id));
      }
      // A committed marker names this folder, and a restart resumes from it: on the disk before that.
      await syncTree(dir);
      await syncFoldersUpTo(dirname(dir), this.#options.dataDir);
      return {
        manifest,
        dir,
        tenants,
        keepTenants: restorer.keepTenants,
        trustIndexFiles: restorer.trustIndexFiles,
        files: manifest.files.filter((f) => f.path.startsWith('files/')).length,
        discard,
      };
    } catch (error) {
      discard();
      throw error;
    }
  }

  /**
   * Applies a staged snapshot: files first, then the rows and the index files. A tenant snapshot fences its tenant,
   * waits for `drain` (the tenant's requests and background writes under way), and replaces the rows in slices; a
   * whole-node one copies the directory, then restores each tenant the same way. `progress(done, total)` counts
   * files, then rows.
   */
  async apply(
    staged: StagedSnapshot,
    progress: (done: number, total: number) => void = () => {},
    drain: (tenantId: string) => Promise<void> = async () => {},
  ): Promise<RestoreReport> {
    await this.#resuming;
    if ((staged.manifest.scope ?? 'node') === 'tenant') return this.#applyTenant(staged, progress, drain);
    return this.#applyNode(staged, progress);
  }

  /**
   * A whole-node snapshot, into a node with no data: its files, then in one transaction its directory (tenants,
   * users, groups, API keys) and a `tenant_restores` row per tenant, which fences them all; then each tenant's rows
   * in slices, as a tenant restore does (#finish), from the one unpacked snapshot, removed after the last. Nothing
   * of a tenant can be under way to drain: the tenant did not exist. A tenant that still fails stays fenced and is
   * finished when the server starts (a whole-node snapshot is not restored again into a node that now holds data).
   */
  async #applyNode(staged: StagedSnapshot, progress: (done: number, total: number) => void): Promise<RestoreReport> {
    const { db, files, dataDir } = this.#options;
    const { manifest, dir } = staged;
    const keys = manifest.files.filter((f) => f.path.startsWith('files/')).map((f) => f.path.slice('files/'.length));
    const total = staged.files + Math.max(1, staged.tenants.length);
    try {
      // The uploaded files go in first, under their own keys (never rewritten), so no restored row names a file the
      // store lacks.
      let done = 0;
      if (files)
        for (const key of keys) {
          await files.store.put(key, createReadStream(join(dir, 'files', ...key.split('/'))));
          progress(++done, total);
        }
      this.#requireEmpty(staged.keepTenants); // again: a tenant may have registered while the files were stored
      attachSnapshot(db, join(dir, 'godb.sqlite'));
      try {
        db.transaction(() => {
          copyDirectory(db, staged.keepTenants);
          for (const tenant of staged.tenants) this.#mark(staged, tenant);
        })();
      } catch (error) {
        if (error instanceof Database.SqliteError && /CONSTRAINT/.test(error.code))
          throw notRestorable(`its rows clash with this node’s (${error.message})`);
        throw error;
      } finally {
        detachSnapshot(db);
      }
    } catch (error) {
      // Nothing changed: the files put for it that no row names go again.
      staged.discard();
      if (files) await files.discard(unnamed(db, keys));
      throw error;
    }
    for (const tenant of staged.tenants) {
      this.#fenced.set(tenant, manifest.id);
      this.#replacing.set(tenant, manifest.id);
    }
    let documents = 0;
    let preserved = true;
    let failure: unknown;
    for (const [i, tenant] of staged.tenants.entries()) {
      try {
        const report = await this.#finish(
          { tenant, snapshotId: manifest.id, dir, trustIndexFiles: staged.trustIndexFiles },
          (rows, all) => progress(staged.files + i + rows / all, total),
        );
        documents += report.documents;
        preserved &&= report.seqsPreserved;
      } catch (error) {
        failure ??= error; // the other tenants are restored all the same
      }
    }
    if (!this.#named(relative(dataDir, dir))) staged.discard(); // also when it held no tenant
    if (failure !== undefined) throw failure;
    progress(total, total);
    void files?.deleteOwed();
    return { tenants: staged.tenants, documents, seqsPreserved: preserved };
  }

  /**
   * A tenant snapshot: its files, then the tenant fenced, drained and replaced in slices. A drain that fails
   * (RESTORE_DRAIN_TIMEOUT) changes nothing: the tenant answers again at once. A replacement that fails part way is
   * tried again (see #finish); one that still fails leaves the tenant fenced, and a later restore of it finishes
   * it (the unpacked snapshot of the failed one is removed then).
   */
  async #applyTenant(
    staged: StagedSnapshot,
    progress: (done: number, total: number) => void,
    drain: (tenantId: string) => Promise<void>,
  ): Promise<RestoreReport> {
    const { db, files, dataDir } = this.#options;
    const { manifest, dir } = staged;
    const tenant = staged.tenants[0]!;
    const keys = manifest.files.filter((f) => f.path.startsWith('files/')).map((f) => f.path.slice('files/'.length));
    let started = false;
    try {
      // The snapshot's files are no longer owed for deletion (a purge after the snapshot owed them), so that no pass
      // of deleteOwed removes one between its upload here and the rows that name it.
      const owed = new FileDeletions(db);
      db.transaction(() => owed.forget(keys))();
      let done = 0;
      const total = staged.files + 1;
      if (files)
        for (const key of keys) {
          await files.store.put(key, createReadStream(join(dir, 'files', ...key.split('/'))));
          progress(++done, total);
        }
      this.#fenced.set(tenant, manifest.id);
      await drain(tenant);
      const previous = restoreDirOf(db, tenant);
      this.#mark(staged, tenant);
      started = true;
      this.#replacing.set(tenant, manifest.id);
      // A restore of this tenant that failed part way is superseded by this one: its unpacked snapshot goes (unless
      // it is a whole-node snapshot that other tenants still restore from).
      if (previous !== undefined && join(dataDir, previous) !== dir && !this.#named(previous))
        rmSync(join(dataDir, previous), { recursive: true, force: true });
      const report = await this.#finish(
        { tenant, snapshotId: manifest.id, dir, trustIndexFiles: staged.trustIndexFiles },
        (rows, all) => progress(staged.files + rows / all, total),
      );
      progress(total, total);
      return report;
    } catch (error) {
      if (!started) {
        // Nothing changed: the tenant answers again (or as it did: fenced by a restore left unfinished), and the files
        // put for this restore that no row names go again.
        this.#refence(tenant);
        staged.discard();
        if (files) await files.discard(unnamed(db, keys));
      }
      throw error;
    }
  }

  /**
   * Replaces the tenant's rows (#replaceTenant), trying again `retry.retries` times after `retry.wait` when an
   * attempt fails part way (a full disk, a store that refused): each attempt starts by deleting what the tenant holds,
   * so it ends the same. Once done, the unpacked snapshot is removed. A restore that still fails throws
   * RESTORE_INTERRUPTED and keeps its `tenant_restores` row and unpacked snapshot: the tenant stays fenced until a
   * restore of it (or a restart) finishes it.
   */
  async #finish(
    restore: { tenant: string; snapshotId: string; dir: string; trustIndexFiles: boolean },
    progress: (rows: number, total: number) => void,
  ): Promise<RestoreReport> {
    const { db } = this.#options;
    const retry = this.#options.retry ?? defaultRetry;
    const interrupted = (reason: string) =>
      createError('RESTORE_INTERRUPTED', { tenant_id: restore.tenant, snapshot_id: restore.snapshotId, reason });
    for (let attempt = 0; ; attempt += 1) {
      if (stagedDatabase(restore.dir) === undefined)
        throw interrupted(`its unpacked snapshot ${restore.dir} is missing`);
      try {
        const report = await this.#replaceTenant(restore, progress);
        // The last tenant restored from it (a whole-node snapshot restores several) removes the unpacked snapshot.
        if (!this.#named(relative(this.#options.dataDir, restore.dir)))
          rmSync(restore.dir, { recursive: true, force: true });
        return report;
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        // The store closed under it (the server stopped): a restart resumes it.
        if (attempt >= retry.retries || !db.open)
          throw interrupted(`${reason}; ${attempt + 1} attempt${attempt === 0 ? '' : 's'}`);
        await retry.wait(attempt + 1);
      }
    }
  }

  /**
   * Replaces a fenced tenant's rows with the snapshot's in slices, then its index files, then lifts the fence.
   * Run again from the start after a crash, it ends the same: every slice first deletes what the tenant holds.
   */
  async #replaceTenant(
    restore: { tenant: string; snapshotId: string; dir: string; trustIndexFiles: boolean },
    progress: (rows: number, total: number) => void,
  ): Promise<RestoreReport> {
    const { db, text, vectors, files, dataDir, clock, sliceRows: maxRows } = this.#options;
    const { tenant } = restore;
    this.#fenced.set(tenant, restore.snapshotId);
    this.#replacing.set(tenant, restore.snapshotId);
    vectors.forgetTenant(tenant);
    const target = this.#indexDir(tenant);
    rmSync(target, { recursive: true, force: true });
    attachSnapshot(db, stagedDatabase(restore.dir) ?? join(restore.dir, 'tenant.sqlite'));
    try {
      // Every step below that reads or writes many rows runs in short slices sized by time (SliceSizer: ~40 ms of
      // work, at most `sliceRows` rows or seqs), with other requests served between: the copy, text, geo, file-key
      // and clash slices walk rowid or seq ranges, so no slice scans the tenant's rows to find where it starts.
      const sizer = () => new SliceSizer(clock, maxRows);
      const turn = () => nextTurn();
      // Where the snapshot's rows lie: a tenant snapshot's database holds only that tenant's rows, so the ends of each
      // table (two key lookups); a whole-node one's, the ends of the tenant's rows, read on its index.
      const ownFile = stagedDatabase(restore.dir)?.endsWith('tenant.sqlite') === true;
      const snapshotBounds = (table: SeqTable): Bounds =>
        ownFile ? tableBounds(db, 's', table) : seqBounds(db, 's', table, tenant);

      // Files: those the tenant's rows name now and the snapshot's do not are owed for deletion before any row goes
      // (an attempt that resumes after a failure owes those of the rows still left: the others were owed already);
      // those the snapshot's rows name are not owed (a purge after the snapshot owed them).
      const snapshotKeys = await fileKeysOf(db, 's', tenant, snapshotBounds('documents'), sizer());
      const currentKeys = await fileKeysOf(db, 'main', tenant, seqBounds(db, 'main', 'documents', tenant), sizer());
      db.transaction(() => {
        files?.owe([...currentKeys].filter((key) => !snapshotKeys.has(key)));
        new FileDeletions(db).forget(snapshotKeys);
      })();
      const old = tenantRowCount(db, 'main', tenant);
      const incoming = ownFile
        ? tenantTables.reduce((sum, { table }) => sum + snapshotRowCount(db, table), 0)
        : tenantRowCount(db, 's', tenant);
      const total = old + incoming * 2;
      let done = 0;
      const step = async (rows: number) => {
        done += rows;
        progress(Math.min(done, total), total);
        await nextTurn();
      };

      // Out with the old (nothing to do for a tenant with no rows: a restore into an empty tenant, or a new node):
      // the rows keyed by document first, then the tenant's own tables.
      if (old > 0) {
        await walkRanges(
          seqBounds(db, 'main', 'documents', tenant),
          sizer(),
          (after, through) => {
            db.transaction(() => deleteDocumentIndexRows(db, tenant, after, through))();
            return 0;
          },
          turn,
        );
        for (const table of tenantOwnTables) {
          const deleting = sizer();
          for (;;) {
            const changes = deleting.measure((size) => deleteTenantRows(db, table, tenant, size));
            if (changes === 0) break;
            await step(changes);
          }
        }
      }
      ensureTenant(db, tenant, unixSeconds(clock));
      transaction(db, [text], () => text.recreate(tenant));

      // In with the snapshot's: seqs kept unless another tenant holds one of them, else moved past the highest; either
      // way their range is reserved first, so that other tenants' rows written meanwhile never take one of them.
      const marks = new Map(seqTables.map((table) => [table, highestSeq(db, table)]));
      let preserved = true;
      for (const table of seqTables)
        if (preserved && (await clashes(db, table, tenant, snapshotBounds(table), sizer()))) preserved = false;
      const offsets = { doc: 0, chunk: 0, vector: 0 };
      db.transaction(() => {
        // Rows other tenants wrote while the checks yielded took seqs above the marks: one may be one of the snapshot's.
        if (preserved && seqTables.some((table) => clashesSince(db, table, tenant, marks.get(table)!)))
          preserved = false;
        offsets.doc = reserveSeqs(db, 'documents', snapshotBounds('documents'), preserved);
        offsets.chunk = reserveSeqs(db, 'chunks', snapshotBounds('chunks'), preserved);
        offsets.vector = reserveSeqs(db, 'document_vectors', snapshotBounds('document_vectors'), preserved);
      })();
      const shifted: Record<string, Record<string, number>> = {
        documents: { seq: offsets.doc },
        chunks: { seq: offsets.chunk, doc_seq: offsets.doc },
        document_access: { doc_seq: offsets.doc },
        document_vectors: { seq: offsets.vector, doc_seq: offsets.doc },
      };
      const copying = sizer();
      for (const table of tenantTables) {
        const skip = table.table === 'engagement_events' ? ['id'] : [];
        await walkRanges(
          tenantRowidBounds(db, tenant, table, ownFile),
          copying,
          (after, through) =>
            db.transaction(() =>
              copyTenantRange(db, tenant, table, after, through, { shift: shifted[table.table], skip }),
            )(),
          step,
        );
      }
      if (!preserved) dropGenerations(db, tenant);

      // The derived indexes, from the restored rows: the text by chunk seq range (three INSERT … SELECTs a slice),
      // the geo by document seq range; the live documents counted on the way.
      await walkRanges(
        shift(snapshotBounds('chunks'), offsets.chunk),
        sizer(),
        (after, through) => transaction(db, [text], () => text.reindexRange(tenant, after, through)),
        (indexed) => step(indexed / 2),
      );
      const documents = await walkRanges(
        shift(snapshotBounds('documents'), offsets.doc),
        sizer(),
        (after, through) => indexGeoRange(db, tenant, after, through),
        turn,
      );

      // The index files, then the end of the restore: the fence lifts with the marker's deletion.
      const source = join(restore.dir, 'vectors', encodeURIComponent(tenant));
      if (preserved && restore.trustIndexFiles && existsSync(source)) {
        mkdirSync(join(dataDir, 'vectors'), { recursive: true });
        renameSync(source, target);
      }
      deleteMarker(db, tenant);
      this.#replacing.delete(tenant);
      vectors.forgetTenant(tenant);
      text.forgetInMemory(tenant);
      this.#fenced.delete(tenant);
      void files?.deleteOwed();
      return { tenants: [tenant], documents, seqsPreserved: preserved };
    } finally {
      detachSnapshot(db);
    }
  }

  /** Refuses a whole-node restore into a node that holds any tenant or document of its own. */
  #requireEmpty(keepTenants: readonly string[]): void {
    const { tenants, documents } = nodeHolds(this.#options.db, keepTenants);
    if (tenants > 0 || documents > 0)
      throw createError('SNAPSHOT_NODE_NOT_EMPTY', { holds: `${tenants} tenants, ${documents} documents` });
  }
}

/** The database of an unpacked snapshot: `tenant.sqlite` (a tenant snapshot) or `godb.sqlite`; undefined when gone. */
function stagedDatabase(dir: string): string | undefined {
  return ['tenant.sqlite', 'godb.sqlite'].map((name) => join(dir, name)).find((file) => existsSync(file));
}

/** A tenant database whose tables are tables (not views of a crafted upload) with the columns of ours. */
function requireTables(file: string): void {
  const table = firstNonTable(
    file,
    tenantTables.map(({ table }) => table),
  );
  if (table !== undefined) throw createError('SNAPSHOT_CORRUPT', { reason: `its ${table} is not a table` });
}

/** Brings a staged database to the current schema (a snapshot taken before later migrations). */
function migrateFile(file: string): void {
  const db = new Database(file);
  try {
    migrate(db);
  } finally {
    db.close();
  }
}

/**
 * The stored files the tenant's documents in `schema` name (`main`, or the attached snapshot `s`), read by seq range
 * in slices (every document's fields are read: at a million, seconds of work).
 */
async function fileKeysOf(
  db: Db,
  schema: 'main' | 's',
  tenant: string,
  bounds: Bounds,
  sizer: SliceSizer,
): Promise<Set<string>> {
  const keys = new Set<string>();
  const read = fileKeyReader(db, schema, tenant);
  await walkRanges(
    bounds,
    sizer,
    (after, through) => {
      for (const key of read(after, through)) keys.add(key);
      return 0;
    },
    nextTurn,
  );
  return keys;
}

/**
 * Whether a snapshot row of the tenant (attached as `s`) has a seq that a row of this node already holds: at once when
 * the node has no row in the snapshot's seq range (a tenant restored on its own node, after its rows were deleted),
 * else by seq range in slices.
 */
async function clashes(db: Db, table: SeqTable, tenant: string, bounds: Bounds, sizer: SliceSizer): Promise<boolean> {
  if (!seqsOccupied(db, table, bounds)) return false;
  const check = clashReader(db, table, tenant);
  let found = false;
  await walkRanges(
    bounds,
    sizer,
    (after, through) => {
      found = check(after, through);
      return found ? null : 0;
    },
    nextTurn,
  );
  return found;
}

/** `bounds` moved by `offset` (renumbered seqs). */
const shift = (bounds: Bounds, offset: number): Bounds => ({ low: bounds.low + offset, high: bounds.high + offset });
