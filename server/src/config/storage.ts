import type { ObjectStore } from '../engine/files/object-store.js';
import { S3Bucket } from '../engine/files/s3-object-store.js';
import { ConfigError, type Config } from './env.js';

/** The storage provider's areas, as the engine and the release downloads use them. */
export interface Storage {
  /** Uploaded document files; undefined for `internal`: the engine's DATA_DIR/files (none in memory). */
  readonly files: ObjectStore | undefined;
  /**
   * Finished release archives shared by every server on the bucket; null for `internal`, where RELEASE_DIR is
   * the one place.
   */
  readonly releases: ObjectStore | null;
  /** Snapshots of the node; undefined for `internal`: the engine's DATA_DIR/snapshots. */
  readonly snapshots: ObjectStore | undefined;
  /**
   * Cluster mode's snapshots, shared by every node (the bucket's `cluster-snapshots/` area); undefined for
   * `internal`: the JetStream object store `godb-snapshots`.
   */
  readonly clusterSnapshots: ObjectStore | undefined;
  /** Releases the provider's connections. */
  close(): void;
}

/** The multipart part size: S3's minimum, so memory per upload stays small (two parts in flight). */
const partSize = 5 * 1024 * 1024;

/**
 * Opens the configured storage provider. For `s3`, checks the bucket first (HeadBucket) and throws a
 * {@link ConfigError} naming what is wrong: an endpoint that cannot be reached, a bucket that does not exist,
 * keys that are refused.
 *
 * @example const storage = await openStorage(loadConfig(process.env));
 */
export async function openStorage(config: Config): Promise<Storage> {
  if (config.STORAGE_PROVIDER === 'internal') {
    return { files: undefined, releases: null, snapshots: undefined, clusterSnapshots: undefined, close() {} };
  }
  const prefix = config.S3_PREFIX === '' || config.S3_PREFIX.endsWith('/') ? config.S3_PREFIX : `${config.S3_PREFIX}/`;
  const bucket = new S3Bucket({
    endpoint: config.S3_ENDPOINT || undefined,
    region: config.S3_REGION,
    bucket: config.S3_BUCKET,
    prefix,
    credentials:
      config.S3_ACCESS_KEY_ID === ''
        ? undefined
        : { accessKeyId: config.S3_ACCESS_KEY_ID, secretAccessKey: config.S3_SECRET_ACCESS_KEY },
    forcePathStyle: config.S3_FORCE_PATH_STYLE,
    partSize,
  });
  const problem = await bucket.problem();
  if (problem !== null) {
    bucket.client.destroy();
    throw new ConfigError(`STORAGE_PROVIDER=s3 cannot be used: ${problem}.`);
  }
  return {
    files: bucket.area('files'),
    releases: bucket.area('releases'),
    snapshots: bucket.area('snapshots'),
    clusterSnapshots: bucket.area('cluster-snapshots'),
    close: () => bucket.client.destroy(),
  };
}
