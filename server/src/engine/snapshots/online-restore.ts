import Database from 'better-sqlite3';
import { createError } from '@godb/contract';
import { createReadStream, existsSync, readdirSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { Readable } from 'node:stream';
import { unixSeconds } from '../clock.js';
import { FileDeletions } from '../files/file-deletions.js';
import {
  attachSnapshot,
  copyDirectory,
  detachSnapshot,
  restoreDirOf,
  restoreMarkers,
  restoresFrom,
  unnamed,
  writeMarker,
  type TenantRestoreRow,
} from './restore-rows.js';
import { RestoreFences } from './restore-fences.js';
import { dropIndexFiles } from './restored-index-files.js';
import {
  notRestorable,
  requireEmpty,
  stagedDatabase,
  stageSnapshot,
  type Restorer,
  type StagedSnapshot,
} from './snapshot-staging.js';
import { nextTurn } from './slices.js';
import {
  replaceTenant,
  type RestoreReport,
  type TenantReplacementOptions,
  type TenantRestore,
} from './tenant-replacement.js';

/** The node an OnlineRestore restores into, and how it retries. */
export interface OnlineRestoreOptions extends TenantReplacementOptions {
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
 *
 * The parts: snapshot-staging.ts unpacks and checks, tenant-replacement.ts replaces one tenant's rows in slices,
 * restored-index-files.ts moves the index files, restore-fences.ts holds which tenants are fenced; this class orders
 * them, retries and resumes.
 */
export class OnlineRestore {
  readonly #options: OnlineRestoreOptions;
  /** Tenants being restored (fenced) and those whose rows are being replaced, with the snapshot of each. */
  readonly #fences = new RestoreFences();
  /** The restores a crash cut short, finishing (see resumePending). */
  #resuming: Promise<void> = Promise.resolve();

  constructor(options: OnlineRestoreOptions) {
    this.#options = options;
    const markers = this.#markers();
    for (const row of markers) {
      this.#fences.fence(row.tenant_id, row.snapshot_id);
      this.#fences.startReplacing(row.tenant_id, row.snapshot_id);
      // Its index files describe rows the restore replaces: gone now, so no warm-up loads or builds from them.
      dropIndexFiles(options.dataDir, row.tenant_id);
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
    return this.#fences.restoring(tenantId);
  }

  /**
   * The snapshot a tenant's rows are being replaced from — they are half deleted or half copied, so nothing may be
   * derived from them (see FencedVectorIndexes) — or undefined.
   */
  replacing(tenantId: string): string | undefined {
    return this.#fences.replacing(tenantId);
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
  stage(archive: Readable, restorer: Restorer): Promise<StagedSnapshot> {
    return stageSnapshot(archive, restorer, this.#options);
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
      requireEmpty(db, staged.keepTenants); // again: a tenant may have registered while the files were stored
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
      this.#fences.fence(tenant, manifest.id);
      this.#fences.startReplacing(tenant, manifest.id);
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
      this.#fences.fence(tenant, manifest.id);
      await drain(tenant);
      const previous = restoreDirOf(db, tenant);
      this.#mark(staged, tenant);
      started = true;
      this.#fences.startReplacing(tenant, manifest.id);
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
        this.#fences.refence(tenant);
        staged.discard();
        if (files) await files.discard(unnamed(db, keys));
      }
      throw error;
    }
  }

  /**
   * Replaces the tenant's rows (replaceTenant), trying again `retry.retries` times after `retry.wait` when an
   * attempt fails part way (a full disk, a store that refused): each attempt starts by deleting what the tenant holds,
   * so it ends the same. Once done, the unpacked snapshot is removed. A restore that still fails throws
   * RESTORE_INTERRUPTED and keeps its `tenant_restores` row and unpacked snapshot: the tenant stays fenced until a
   * restore of it (or a restart) finishes it.
   */
  async #finish(restore: TenantRestore, progress: (rows: number, total: number) => void): Promise<RestoreReport> {
    const { db } = this.#options;
    const retry = this.#options.retry ?? defaultRetry;
    const interrupted = (reason: string) =>
      createError('RESTORE_INTERRUPTED', { tenant_id: restore.tenant, snapshot_id: restore.snapshotId, reason });
    for (let attempt = 0; ; attempt += 1) {
      if (stagedDatabase(restore.dir) === undefined)
        throw interrupted(`its unpacked snapshot ${restore.dir} is missing`);
      try {
        const report = await replaceTenant(this.#options, this.#fences, restore, progress);
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
}
