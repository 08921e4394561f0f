import { createError } from '@godb/contract';
import { createHash, randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream, existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import tar from 'tar-stream';
import { LocalObjectStore } from '../files/local-object-store.js';
import { makeFolderDurably, syncFile, syncFolder, syncTree } from '../storage/durable-files.js';
import { keySegment, type ObjectStore } from '../files/object-store.js';
import type { SnapshotFile, SnapshotManifest } from './snapshots.js';

const corrupt = (reason: string) => createError('SNAPSHOT_CORRUPT', { reason });

/** Paths a snapshot may hold: the database and index files, never a way out of the data folder. */
const allowedPath =
  /^(godb\.sqlite|tenant\.sqlite|(vectors|files)\/[A-Za-z0-9%._~!'()*-]+(\/[A-Za-z0-9%._~!'()*-]+)*)$/;

async function readAll(stream: AsyncIterable<unknown>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function parseManifest(bytes: Buffer): SnapshotManifest {
  let manifest: SnapshotManifest;
  try {
    manifest = JSON.parse(bytes.toString('utf8')) as SnapshotManifest;
  } catch {
    throw corrupt('its manifest.json is not JSON');
  }
  if (manifest.format !== 'godb-snapshot/1' || !Array.isArray(manifest.files))
    throw corrupt('its manifest.json is not a GoDB snapshot manifest');
  for (const file of manifest.files) {
    if (typeof file.path !== 'string' || !allowedPath.test(file.path) || file.path.split('/').includes('..'))
      throw corrupt(`its manifest names an unexpected file ${JSON.stringify(file.path)}`);
  }
  const database = manifest.scope === 'tenant' ? 'tenant.sqlite' : 'godb.sqlite';
  if (!manifest.files.some((file) => file.path === database)) throw corrupt('it holds no database');
  return manifest;
}

/**
 * A tenant snapshot may hold only that tenant's database, index files and uploaded files: an archive naming
 * another tenant's index or file (a crafted upload) is refused before anything is unpacked into place.
 */
export function checkTenantPaths(manifest: SnapshotManifest): void {
  if (manifest.scope !== 'tenant') return;
  const tenant = manifest.tenant_id;
  if (typeof tenant !== 'string' || tenant === '') throw corrupt('its manifest names no tenant');
  const own = [`vectors/${encodeURIComponent(tenant)}/`, `files/${keySegment(tenant)}/`];
  for (const file of manifest.files) {
    if (file.path !== 'tenant.sqlite' && !own.some((prefix) => file.path.startsWith(prefix)))
      throw corrupt(`it is a snapshot of tenant ${tenant} but holds ${file.path}`);
  }
}

/**
 * Unpacks a snapshot archive (a tar written by {@link Snapshots.create}) into `staging` and checks every file
 * against the manifest's sizes and SHA-256 checksums; throws `SNAPSHOT_CORRUPT` (leaving `staging` for the caller
 * to remove) when anything is missing, extra or different. Answers the manifest once everything matched.
 *
 * @example const manifest = await unpackSnapshot(createReadStream('snap.tar'), '/data/.restore-1');
 */
export async function unpackSnapshot(
  archive: Readable,
  staging: string,
  progress: (bytes: number) => void = () => {},
): Promise<SnapshotManifest> {
  const state: { manifest: SnapshotManifest | null } = { manifest: null };
  const seen = new Map<string, { size: number; sha256: string }>();
  const extract = tar.extract();
  let bytes = 0;
  const done = new Promise<void>((resolve, reject) => {
    extract.on('entry', (header, stream, next) => {
      void (async () => {
        const manifest = state.manifest;
        if (manifest === null) {
          if (header.name !== 'manifest.json') throw corrupt('it does not begin with manifest.json');
          state.manifest = parseManifest(await readAll(stream));
          return;
        }
        const expected: SnapshotFile | undefined = manifest.files.find((file) => file.path === header.name);
        if (!expected || header.type !== 'file') throw corrupt(`it holds ${header.name}, which its manifest lacks`);
        if (seen.has(header.name)) throw corrupt(`it holds ${header.name} twice`);
        const target = join(staging, ...expected.path.split('/'));
        mkdirSync(dirname(target), { recursive: true });
        const hash = createHash('sha256');
        let size = 0;
        stream.on('data', (data) => {
          const chunk = data as Buffer;
          hash.update(chunk);
          size += chunk.length;
          bytes += chunk.length;
          progress(bytes);
        });
        await pipeline(stream, createWriteStream(target));
        seen.set(header.name, { size, sha256: hash.digest('hex') });
      })().then(
        () => next(),
        (error: unknown) => {
          stream.resume();
          extract.destroy();
          reject(error as Error);
        },
      );
    });
    extract.on('finish', resolve);
    extract.on('error', (error) => reject(corrupt(`it is not a readable tar archive (${error.message})`)));
  });
  archive.on('error', (error) => extract.destroy(error));
  archive.pipe(extract);
  await done;
  const found = state.manifest;
  if (found === null) throw corrupt('it is empty');
  for (const file of found.files) {
    const got = seen.get(file.path);
    if (!got) throw corrupt(`${file.path} is missing`);
    if (got.size !== file.size)
      throw corrupt(`${file.path} has ${got.size} bytes where its manifest says ${file.size}`);
    if (got.sha256 !== file.sha256) throw corrupt(`${file.path} fails its SHA-256 checksum`);
  }
  return found;
}

/**
 * Restores a whole-node snapshot (a tar archive written by {@link Snapshots.create}) into an empty data folder.
 * Every file is unpacked into a hidden folder beside the data and checked against the manifest's size and
 * SHA-256 first; only when all match are they moved into place, so a damaged snapshot is refused
 * (`SNAPSHOT_CORRUPT`) and leaves the folder as it was. The index files are used as they are when the server
 * starts: their recorded generations match the restored store's, so nothing is rebuilt. A tenant snapshot is
 * refused: it restores on a live server (`POST /api/v1/snapshots/restore`).
 *
 * @example const manifest = await restoreSnapshot(createReadStream('snap.tar'), './data');
 */
export async function restoreSnapshot(
  archive: Readable,
  dataDir: string,
  files: ObjectStore = new LocalObjectStore(join(dataDir, 'files')),
): Promise<SnapshotManifest> {
  if (existsSync(join(dataDir, 'godb.sqlite'))) throw createError('SNAPSHOT_TARGET_NOT_EMPTY', { dataDir });
  await makeFolderDurably(dataDir);
  const staging = join(dataDir, `.restore-${randomUUID()}`);
  mkdirSync(staging);
  try {
    const found = await unpackSnapshot(archive, staging);
    if (found.scope === 'tenant')
      throw createError('SNAPSHOT_NOT_RESTORABLE', {
        reason: `it holds one tenant (${found.tenant_id ?? '?'}), which restores on a running server with POST /api/v1/snapshots/restore`,
      });
    // Everything checked: now into place, the uploaded files first (to the configured store), the database last,
    // so a store that fails midway leaves no database that names files it lacks.
    for (const file of found.files) {
      if (!file.path.startsWith('files/')) continue;
      await files.put(file.path.slice('files/'.length), createReadStream(join(staging, ...file.path.split('/'))));
    }
    // What is moved into place (the database, the index files) reaches the disk before it is moved, and the moves
    // before the restore answers: a power cut after it leaves the restored node, not a database cut short. The
    // uploaded files were made durable by the store they were put in.
    await syncFile(join(staging, 'godb.sqlite'));
    if (existsSync(join(staging, 'vectors'))) await syncTree(join(staging, 'vectors'));
    // An empty node's leftover index files belong to no database (text checkpoints are not in snapshots: the
    // restored store's text indexes are built from its rows).
    rmSync(join(dataDir, 'vectors'), { recursive: true, force: true });
    rmSync(join(dataDir, 'text'), { recursive: true, force: true });
    if (existsSync(join(staging, 'vectors'))) renameSync(join(staging, 'vectors'), join(dataDir, 'vectors'));
    for (const suffix of ['-wal', '-shm']) rmSync(join(dataDir, `godb.sqlite${suffix}`), { force: true });
    renameSync(join(staging, 'godb.sqlite'), join(dataDir, 'godb.sqlite'));
    await syncFolder(dataDir);
    return found;
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}
