import Database from 'better-sqlite3';
import { createError } from '@godb/contract';
import { createHash, randomUUID } from 'node:crypto';
import {
  copyFileSync,
  createReadStream,
  createWriteStream,
  existsSync,
  linkSync,
  mkdirSync,
  readdirSync,
  rmSync,
  statSync,
} from 'node:fs';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import tar from 'tar-stream';
import { unixSeconds, type Clock } from '../clock.js';
import type { VectorIndexes } from '../vectors/vector-index.js';
import type { ObjectStore } from '../files/object-store.js';
import { checkTenantPaths, unpackSnapshot } from './restore.js';
import { maxSliceRows, SliceSizer, walkRanges } from './slices.js';
import {
  beginNodeRead,
  beginTenantRead,
  endNodeRead,
  endTenantRead,
  fileKeyPages,
  type SnapshotPoint,
} from './snapshot-rows.js';
import { copyTenantRange, countTenantRows, createEmptyStore, tenantRowidBounds, tenantTables } from './tenant-rows.js';

/** One file of a snapshot, as its manifest records it. */
export interface SnapshotFile {
  /** Its path in the data folder (`godb.sqlite`, `vectors/…`). */
  readonly path: string;
  readonly size: number;
  readonly sha256: string;
}

/** What a snapshot holds: written first in its archive and beside it in the store, for listing. */
export interface SnapshotManifest {
  readonly format: 'godb-snapshot/1';
  readonly id: string;
  /**
   * `node` (absent in snapshots written before tenant snapshots): the whole database, `godb.sqlite`. `tenant`: the
   * rows of one tenant (see tenantTables) in `tenant.sqlite`, its index files and its uploaded files.
   */
  readonly scope?: 'node' | 'tenant';
  /** The tenant of a tenant snapshot. */
  readonly tenant_id?: string;
  /** Unix seconds when the snapshot's consistent point was taken. */
  readonly created_at: number;
  /**
   * The last write included: the highest document version sequence at the snapshot's point (0 when empty); in a
   * tenant snapshot, the tenant's highest.
   */
  readonly last_write_seq: number;
  /**
   * Cluster mode, whole-node snapshots: the last sequence of each shard stream of the replicated log that the
   * snapshot's rows include, by shard number ("0" … "15"; read in the same read transaction as the copy, so replaying
   * each shard from its next one is exact).
   */
  readonly cluster_applied?: Readonly<Record<string, number>>;
  /** Schema version (`PRAGMA user_version`) of the stored database. */
  readonly schema_version: number;
  readonly files: readonly SnapshotFile[];
  /**
   * Keys of files uploaded with documents that the store no longer had when the snapshot copied them (their
   * documents were purged after the snapshot's point); absent when none.
   */
  readonly missing_files?: readonly string[];
  /** Sum of the files' sizes. */
  readonly bytes: number;
  /**
   * Set (in the manifest stored beside the archive only) when a tenant admin uploaded the archive: its index files
   * are not loaded at restore, the indexes are rebuilt from its rows.
   */
  readonly untrusted_indexes?: boolean;
}

/** Snapshot ids are made by GoDB; a request's id is checked against this before it becomes an object key. */
const snapshotId = /^snap-[0-9]{8}T[0-9]{6}Z-[0-9a-f]{8}$/;
/** The key of an archive copy a restore keeps (see Snapshots.keep): only keys of this shape are read or collected. */
export const keptArchiveKey = /^kept\/snap-[A-Za-z0-9-]+\.tar$/;
export const archiveKey = (id: string) => `${id}.tar`;
const manifestKey = (id: string) => `${id}.manifest.json`;

function sha256Of(path: string): Promise<string> {
  const hash = createHash('sha256');
  return pipeline(createReadStream(path), hash).then(() => hash.digest('hex'));
}

function filesUnder(root: string, prefix = ''): string[] {
  if (!existsSync(root)) return [];
  const found: string[] = [];
  for (const entry of readdirSync(root, { withFileTypes: true })) {
    const relative = prefix === '' ? entry.name : `${prefix}/${entry.name}`;
    if (entry.isDirectory()) found.push(...filesUnder(join(root, entry.name), relative));
    else if (entry.isFile() && !entry.name.endsWith('.tmp')) found.push(relative);
  }
  return found;
}

export interface SnapshotsOptions {
  readonly vectors: VectorIndexes;
  /** The data folder (the database file and `vectors/`); snapshots are staged under it. */
  readonly dataDir: string;
  /** Where finished snapshots are kept: DATA_DIR/snapshots, or the bucket's `snapshots/` area. */
  readonly store: ObjectStore;
  /** Where files uploaded with documents are kept, copied into each snapshot (`files/<key>`); null for none. */
  readonly files: ObjectStore | null;
  readonly clock: Clock;
}

/**
 * Consistent snapshots of a live node, taken without stopping writes. In one synchronous step (no write can
 * come between) the vector index files are saved and linked into a staging folder, and a second, read-only
 * SQLite connection opens a read transaction: WAL mode keeps that connection's view fixed while writes go on,
 * and SQLite's online backup then copies exactly that view. An index file is trusted at restore only when the
 * generation it records equals the restored store's, which holds because both were taken at the same point.
 * The archive (tar: `manifest.json` first, then every file) goes to the store with its manifest beside it.
 */
export class Snapshots {
  readonly #options: SnapshotsOptions;

  constructor(options: SnapshotsOptions) {
    this.#options = options;
  }

  get location(): string {
    return this.#options.store.location;
  }

  /** A fresh id, e.g. `snap-20261123T230501Z-1a2b3c4d`: sortable by time. */
  newId(): string {
    const stamp = new Date(this.#options.clock.now())
      .toISOString()
      .replace(/[-:]/g, '')
      .replace(/\.\d+Z$/, 'Z');
    return `snap-${stamp}-${randomUUID().slice(0, 8)}`;
  }

  /**
   * Takes a snapshot under `id`; `progress(done, total)` is called as the database is copied and stored.
   *
   * @example const manifest = await snapshots.create(snapshots.newId(), (done, total) => log(done, total));
   */
  async create(
    id: string,
    progress: (done: number, total: number) => void = () => {},
    tenantId?: string,
  ): Promise<SnapshotManifest> {
    const { vectors, dataDir, store } = this.#options;
    const staging = join(dataDir, 'snapshots', `.staging-${id}`);
    const database = tenantId === undefined ? 'godb.sqlite' : 'tenant.sqlite';
    mkdirSync(join(staging, 'vectors'), { recursive: true });
    let reader: Database.Database | null = null;
    try {
      // The consistent point: nothing else runs on this thread until the read transaction is open.
      vectors.saveAll();
      const vectorDir = join(dataDir, 'vectors');
      const tenantDir = tenantId === undefined ? '' : `${encodeURIComponent(tenantId)}/`;
      for (const file of filesUnder(vectorDir).filter((path) => path.startsWith(tenantDir))) {
        const target = join(staging, 'vectors', ...file.split('/'));
        mkdirSync(join(target, '..'), { recursive: true });
        // Index files are replaced by rename, so a hard link keeps this version; the small metadata is copied.
        if (file.endsWith('.json')) copyFileSync(join(vectorDir, file), target);
        else {
          try {
            linkSync(join(vectorDir, file), target);
          } catch {
            copyFileSync(join(vectorDir, file), target);
          }
        }
      }
      const createdAt = unixSeconds(this.#options.clock);
      let point: SnapshotPoint;
      if (tenantId === undefined) {
        reader = new Database(join(dataDir, 'godb.sqlite'), { readonly: true });
        point = beginNodeRead(reader);
        await reader.backup(join(staging, database), {
          progress: ({ totalPages, remainingPages }) => {
            progress(totalPages - remainingPages, totalPages * 2);
            return 1024;
          },
        });
        endNodeRead(reader);
      } else {
        // The tenant's rows, copied into a fresh database with the same schema: one read transaction on the live
        // store (attached as `s`), opened at the point and kept across slices, so writes go on meanwhile.
        reader = createEmptyStore(join(staging, database));
        // A staging file: the archive is what lasts (a crash leaves a staging folder, removed with it), so its writes
        // need no sync.
        point = beginTenantRead(reader, join(dataDir, 'godb.sqlite'), tenantId);
        const total = countTenantRows(reader, tenantId);
        let copied = 0;
        // Slices of ~40 ms each (this connection's statements run on the event loop too), walking rowid ranges.
        const sizer = new SliceSizer(this.#options.clock, maxSliceRows);
        const copier = reader;
        for (const table of tenantTables) {
          const counted = table.table !== 'document_access'; // progress counts the rows with a tenant column
          await walkRanges(
            tenantRowidBounds(copier, tenantId, table),
            sizer,
            (after, through) => copyTenantRange(copier, tenantId, table, after, through),
            async (rows) => {
              if (counted) copied += rows;
              progress(copied, total * 2);
              await new Promise((next) => setImmediate(next));
            },
          );
        }
        endTenantRead(reader);
      }
      reader.close();
      reader = null;

      // Files uploaded with documents: the ones the snapshot's rows name. They are never rewritten under a key, so
      // copying them after the point is consistent; one purged since is gone and is recorded as missing.
      const missing: string[] = [];
      if (this.#options.files) {
        // Every document's fields are read (seconds at a million): by seq range, in slices.
        const backup = new Database(join(staging, database), { readonly: true });
        const found = new Set<string>();
        try {
          const { bounds, read } = fileKeyPages(backup);
          await walkRanges(
            bounds,
            new SliceSizer(this.#options.clock, maxSliceRows),
            (after, through) => {
              for (const key of read(after, through)) found.add(key);
              return 0;
            },
            () => new Promise((next) => setImmediate(next)),
          );
        } finally {
          backup.close();
        }
        const keys = [...found];
        for (const key of keys) {
          const object = await this.#options.files.get(key);
          if (!object) {
            missing.push(key);
            continue;
          }
          const target = join(staging, 'files', ...key.split('/'));
          mkdirSync(join(target, '..'), { recursive: true });
          await pipeline(object.body, createWriteStream(target));
        }
      }
      const paths = [
        database,
        ...filesUnder(join(staging, 'vectors'), 'vectors'),
        ...filesUnder(join(staging, 'files'), 'files'),
      ];
      const files: SnapshotFile[] = [];
      for (const path of paths) {
        const full = join(staging, ...path.split('/'));
        files.push({ path, size: statSync(full).size, sha256: await sha256Of(full) });
      }
      const manifest: SnapshotManifest = {
        format: 'godb-snapshot/1',
        id,
        scope: tenantId === undefined ? 'node' : 'tenant',
        ...(tenantId !== undefined && { tenant_id: tenantId }),
        created_at: createdAt,
        last_write_seq: point.lastSeq,
        ...(point.clusterApplied !== undefined &&
          Object.keys(point.clusterApplied).length > 0 && { cluster_applied: point.clusterApplied }),
        schema_version: point.schemaVersion,
        files,
        ...(missing.length > 0 && { missing_files: missing }),
        bytes: files.reduce((sum, file) => sum + file.size, 0),
      };
      const total = manifest.bytes;
      let stored = 0;
      const pack = tar.pack();
      // tar-stream's streams are readable-stream's, which the S3 uploader does not take for Node's own.
      const body = new PassThrough();
      pack.on('error', (error) => body.destroy(error));
      const archive = store.put(archiveKey(id), pack.pipe(body));
      const writing = (async () => {
        const json = Buffer.from(JSON.stringify(manifest, null, 2));
        pack.entry({ name: 'manifest.json', size: json.length }, json);
        for (const file of files) {
          const entry = pack.entry({ name: file.path, size: file.size });
          const source = createReadStream(join(staging, ...file.path.split('/')));
          source.on('data', (chunk) => {
            stored += chunk.length;
            progress(total + stored, total * 2);
          });
          await pipeline(source, entry);
        }
        pack.finalize();
      })();
      writing.catch((error: unknown) => pack.destroy(error as Error));
      await Promise.all([archive, writing]);
      await store.put(manifestKey(id), Buffer.from(JSON.stringify(manifest)));
      return manifest;
    } catch (error) {
      await store.delete([archiveKey(id), manifestKey(id)]).catch(() => {});
      throw error;
    } finally {
      reader?.close();
      rmSync(staging, { recursive: true, force: true });
    }
  }

  /**
   * Stores an archive uploaded by a client (`POST /api/v1/snapshots/upload`) under its own id, once every file
   * matches the manifest's size and SHA-256 (else `SNAPSHOT_CORRUPT`, nothing kept). With `tenantId` (a tenant
   * admin), only a snapshot of that tenant is taken, and its index files are marked untrusted.
   *
   * @example const manifest = await snapshots.receive(request.body, viewer.tenantId);
   */
  async receive(body: AsyncIterable<Uint8Array>, tenantId?: string): Promise<SnapshotManifest> {
    const staging = join(this.#options.dataDir, 'snapshots', `.upload-${randomUUID()}`);
    mkdirSync(staging, { recursive: true });
    try {
      const file = join(staging, 'archive.tar');
      await pipeline(Readable.from(body), createWriteStream(file));
      const manifest = await unpackSnapshot(createReadStream(file), join(staging, 'files'));
      checkTenantPaths(manifest);
      if (tenantId !== undefined && (manifest.scope !== 'tenant' || manifest.tenant_id !== tenantId))
        throw createError('SNAPSHOT_NOT_RESTORABLE', {
          reason: 'it is not a snapshot of your tenant; a tenant admin uploads only its own tenant’s snapshots',
        });
      if (!snapshotId.test(manifest.id))
        throw createError('SNAPSHOT_CORRUPT', { reason: 'its id is not a snapshot id' });
      if (await this.#options.store.has(manifestKey(manifest.id)))
        throw createError('SNAPSHOT_NOT_RESTORABLE', {
          reason: `a snapshot ${manifest.id} is already stored here; restore it by its id`,
        });
      const stored: SnapshotManifest = { ...manifest, ...(tenantId !== undefined && { untrusted_indexes: true }) };
      await this.#options.store.put(archiveKey(manifest.id), createReadStream(file));
      await this.#options.store.put(manifestKey(manifest.id), Buffer.from(JSON.stringify(stored)));
      return stored;
    } finally {
      rmSync(staging, { recursive: true, force: true });
    }
  }

  /** The snapshots in the store, newest first; with `tenantId`, only that tenant's snapshots. */
  async list(tenantId?: string): Promise<SnapshotManifest[]> {
    const keys = (await this.#options.store.list()).filter((key) => key.endsWith('.manifest.json'));
    const manifests: SnapshotManifest[] = [];
    for (const key of keys) {
      const object = await this.#options.store.get(key);
      if (!object) continue;
      const chunks: Buffer[] = [];
      for await (const chunk of object.body) chunks.push(chunk as Buffer);
      const manifest = JSON.parse(Buffer.concat(chunks).toString('utf8')) as SnapshotManifest;
      if (tenantId === undefined || manifest.tenant_id === tenantId) manifests.push(manifest);
    }
    return manifests.sort((a, b) => (a.id < b.id ? 1 : -1));
  }

  /**
   * The manifest of a stored snapshot; with `tenantId`, only when it is that tenant's (another's is not found,
   * as every object of another tenant).
   */
  async manifest(id: string, tenantId?: string): Promise<SnapshotManifest> {
    const object = snapshotId.test(id) ? await this.#options.store.get(manifestKey(id)) : null;
    if (object) {
      const chunks: Buffer[] = [];
      for await (const chunk of object.body) chunks.push(chunk as Buffer);
      const manifest = JSON.parse(Buffer.concat(chunks).toString('utf8')) as SnapshotManifest;
      if (tenantId === undefined || manifest.tenant_id === tenantId) return manifest;
    }
    throw createError('NOT_FOUND', { resource: 'Snapshot', id });
  }

  /** The archive of a snapshot, to download or restore; with `tenantId`, only that tenant's. */
  async archive(id: string, tenantId?: string) {
    if (tenantId !== undefined) await this.manifest(id, tenantId);
    const object = snapshotId.test(id) ? await this.#options.store.get(archiveKey(id)) : null;
    if (!object) throw createError('NOT_FOUND', { resource: 'Snapshot', id });
    return object;
  }

  /**
   * Cluster mode: a copy of a snapshot's archive that a restore operation of the replicated log names, so that every
   * node restores the same bytes in log order, whenever it applies it, even once the snapshot itself was deleted.
   * Not listed (it has no manifest). Answers its key.
   */
  async keep(id: string, tenantId?: string): Promise<string> {
    const { store } = this.#options;
    const archive = await this.archive(id, tenantId);
    const key = `kept/${id}-${randomUUID()}.tar`;
    if (store.copy) {
      archive.body.destroy();
      await store.copy(archiveKey(id), key);
    } else await store.put(key, archive.body);
    return key;
  }

  /** The archive copy `keep` answered `key` for; NOT_FOUND when it is not in the store. */
  async kept(key: string) {
    const object = keptArchiveKey.test(key) ? await this.#options.store.get(key) : null;
    if (!object) throw createError('NOT_FOUND', { resource: 'Snapshot archive', id: key });
    return object;
  }

  /**
   * Deletes every archive copy `keep` made: on a node that is the only one, nothing reads a copy once its restore
   * ended, and a restore cut short by a crash resumes from its staging folder, not from the copy.
   */
  async forgetAllKept(): Promise<number> {
    const kept = (await this.#options.store.list()).filter((key) => keptArchiveKey.test(key));
    await this.#options.store.delete(kept);
    return kept.length;
  }

  /** Deletes an archive copy `keep` made, once nothing will read it (only keys of the copies' shape). */
  async forgetKept(key: string): Promise<void> {
    if (keptArchiveKey.test(key)) await this.#options.store.delete([key]);
  }

  /** Removes a snapshot (its archive and manifest); with `tenantId`, only that tenant's. */
  async delete(id: string, tenantId?: string): Promise<void> {
    await this.manifest(id, tenantId);
    await this.#options.store.delete([archiveKey(id), manifestKey(id)]);
  }
}
