import { createError, isGoDBError } from '@godb/contract';
import { createReadStream, existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Readable } from 'node:stream';
import { ConfigError, loadConfig } from './config/env.js';
import { openStorage } from './config/storage.js';
import { LocalObjectStore } from './engine/files/local-object-store.js';
import { S3Bucket, S3ObjectStore } from './engine/files/s3-object-store.js';
import { restoreSnapshot } from './engine/snapshots/restore.js';

/**
 * `godb restore <file | snapshot id | s3://bucket/key>`, run before the server starts: restores a whole-node
 * snapshot into the empty DATA_DIR of the environment. The argument is an archive on disk (a downloaded snapshot),
 * the id of a snapshot in the configured snapshot store (DATA_DIR/snapshots, or the S3 bucket with
 * STORAGE_PROVIDER=s3), or an object of any bucket the S3_* settings (endpoint, region, keys) can read.
 * Returns the exit code: 0 restored, 1 refused (a damaged snapshot, a data folder in use, no such snapshot),
 * 2 a usage or configuration error. Nothing is changed unless every checksum matches.
 *
 * @example process.exitCode = await restoreCommand(['snap.tar'], process.env, process.stdout, process.stderr);
 */
export async function restoreCommand(
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  out: { write(text: string): unknown },
  err: { write(text: string): unknown },
  now: () => number = () => performance.now(),
): Promise<number> {
  const source = args.length === 1 ? (args[0] ?? '') : '';
  if (source === '' || source.startsWith('-')) {
    err.write(
      'Usage: godb restore <snapshot.tar | snapshot id | s3://bucket/key>   (DATA_DIR must be empty; the server stopped)\n',
    );
    return 2;
  }
  let config;
  try {
    config = loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) {
      err.write(`${error.message}\n`);
      return 2;
    }
    throw error;
  }
  const started = now();
  let storage: Awaited<ReturnType<typeof openStorage>> | null = null;
  let bucket: S3Bucket | null = null;
  try {
    let archive: Readable;
    storage = await openStorage(config);
    if (source.startsWith('s3://')) {
      const [, bucketName, key] = /^s3:\/\/([^/]+)\/(.+)$/.exec(source) ?? [];
      if (bucketName === undefined || key === undefined)
        throw createError('NOT_FOUND', { resource: 'Snapshot (s3://bucket/key)', id: source });
      bucket = new S3Bucket({
        endpoint: config.S3_ENDPOINT || undefined,
        region: config.S3_REGION,
        bucket: bucketName,
        prefix: '',
        credentials:
          config.S3_ACCESS_KEY_ID === ''
            ? undefined
            : { accessKeyId: config.S3_ACCESS_KEY_ID, secretAccessKey: config.S3_SECRET_ACCESS_KEY },
        forcePathStyle: config.S3_FORCE_PATH_STYLE,
      });
      const found = await new S3ObjectStore(bucket, '').get(key);
      if (!found) throw createError('NOT_FOUND', { resource: 'Snapshot', id: source });
      archive = found.body;
    } else if (existsSync(source)) archive = createReadStream(source);
    else {
      const store = storage.snapshots ?? new LocalObjectStore(join(config.DATA_DIR, 'snapshots'));
      const found = /^snap-[0-9A-Za-z-]+$/.test(source) ? await store.get(`${source}.tar`) : null;
      if (!found) throw createError('NOT_FOUND', { resource: 'Snapshot file or id', id: source });
      archive = found.body;
    }
    const manifest = await restoreSnapshot(archive, config.DATA_DIR, storage.files);
    const seconds = ((now() - started) / 1000).toFixed(2);
    out.write(
      `Restored snapshot ${manifest.id} (${manifest.files.length} files, ${manifest.bytes} bytes, last write ${manifest.last_write_seq}) into ${resolve(config.DATA_DIR)} in ${seconds} s. Start GoDB on it.\n`,
    );
    return 0;
  } catch (error) {
    if (error instanceof ConfigError) {
      err.write(`${error.message}\n`);
      return 2;
    }
    if (isGoDBError(error)) {
      err.write(`Restore refused: ${error.message}\n`);
      return 1;
    }
    throw error;
  } finally {
    bucket?.client.destroy();
    storage?.close();
  }
}
