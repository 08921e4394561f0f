import {
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { createError } from '@godb/contract';
import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { ObjectStore, StoredObject } from './object-store.js';

export interface S3BucketOptions {
  /** The S3 API's base URL (Swift, MinIO, Ceph …); undefined means AWS itself, in `region`. */
  readonly endpoint: string | undefined;
  readonly region: string;
  readonly bucket: string;
  /** Prepended to every key, e.g. `godb/`, so GoDB can share a bucket. */
  readonly prefix: string;
  /** Static keys; undefined means the SDK's default chain (AWS_* variables, instance roles …). */
  readonly credentials: { readonly accessKeyId: string; readonly secretAccessKey: string } | undefined;
  /** `bucket` in the path rather than the host name: what most stores other than AWS need. */
  readonly forcePathStyle: boolean;
  /** Size of each part of a multipart upload (at least 5 MiB, S3's minimum); smaller objects go in one PUT. */
  readonly partSize?: number;
}

const minPartSize = 5 * 1024 * 1024;

const statusOf = (error: unknown) => (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
const isAbsent = (error: unknown) =>
  statusOf(error) === 404 || (error instanceof S3ServiceException && /^(NoSuchKey|NotFound)$/.test(error.name));

/**
 * One S3 bucket (AWS or any S3-compatible store) through `@aws-sdk/client-s3`, divided into areas by key prefix
 * (`files/`, `releases/` …). Checksums are computed and validated only where the S3 API requires them
 * (`WHEN_REQUIRED`): the SDK's default of CRC32 on every upload sends aws-chunked bodies with trailers, which
 * S3-compatible stores such as OpenStack Swift refuse. For the same stores, a multi-object delete carries the
 * Content-MD5 header that the API once required (the SDK now sends a CRC32 instead).
 */
export class S3Bucket {
  readonly client: S3Client;
  readonly #options: S3BucketOptions;

  constructor(options: S3BucketOptions) {
    this.#options = options;
    this.client = new S3Client({
      ...(options.endpoint !== undefined && { endpoint: options.endpoint }),
      region: options.region,
      forcePathStyle: options.forcePathStyle,
      ...(options.credentials && { credentials: options.credentials }),
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      // A store that does not answer fails a request (and start-up) in seconds, not at the OS's TCP timeout.
      requestHandler: { connectionTimeout: 5_000, requestTimeout: 120_000 },
    });
    this.client.middlewareStack.add(
      (next, context) => async (args) => {
        const request = args.request as { body?: unknown; headers?: Record<string, string> };
        if (context.commandName === 'DeleteObjectsCommand' && typeof request.body === 'string' && request.headers) {
          request.headers['content-md5'] = createHash('md5').update(request.body).digest('base64');
        }
        return next(args);
      },
      { step: 'build', name: 'godbContentMd5OnDeleteObjects' },
    );
  }

  /** Where the bucket is, for messages: `s3://bucket/prefix at endpoint`. */
  get location(): string {
    const where = this.#options.endpoint ?? `AWS S3 (${this.#options.region})`;
    return `s3://${this.#options.bucket}/${this.#options.prefix} at ${where}`;
  }

  /** The area of the bucket under `name/` (after the configured prefix). */
  area(name: string): ObjectStore {
    return new S3ObjectStore(this, `${this.#options.prefix}${name}/`);
  }

  get bucket(): string {
    return this.#options.bucket;
  }

  get partSize(): number {
    return Math.max(minPartSize, this.#options.partSize ?? minPartSize);
  }

  /**
   * Checks that the bucket exists and that the keys may use it (HeadBucket). Answers null when it can be used,
   * else what is wrong, naming the setting to correct.
   */
  async problem(): Promise<string | null> {
    const { bucket, endpoint, region } = this.#options;
    const where = endpoint === undefined ? `AWS S3 in ${region}` : `S3_ENDPOINT ${endpoint}`;
    try {
      await this.client.send(new HeadBucketCommand({ Bucket: bucket }));
      return null;
    } catch (error) {
      const status = statusOf(error);
      if (status === undefined) {
        const code = (error as { code?: string }).code;
        return `${where} cannot be reached (${code ?? (error as Error).name}: ${(error as Error).message}); check S3_ENDPOINT and that the store is running`;
      }
      if (status === 404) return `S3_BUCKET "${bucket}" does not exist at ${where}; create it or correct S3_BUCKET`;
      if (status === 301 || status === 400) {
        const actual = (error as { $response?: { headers?: Record<string, string> } }).$response?.headers?.[
          'x-amz-bucket-region'
        ];
        return `S3_BUCKET "${bucket}" answered ${status} at ${where}${actual ? `: it is in region ${actual}, not S3_REGION=${region}` : ''}; check S3_REGION and S3_FORCE_PATH_STYLE`;
      }
      if (status === 403) {
        // HEAD answers carry no body: a listing says whether the keys or the permissions are wrong.
        const detail = await this.client.send(new ListObjectsV2Command({ Bucket: bucket, MaxKeys: 1 })).then(
          () => 'HeadBucket was refused',
          (listing: unknown) => `${(listing as Error).name}: ${(listing as Error).message}`,
        );
        const key = this.#options.credentials?.accessKeyId;
        return /AccessDenied|AllAccessDisabled/.test(detail)
          ? `S3_ACCESS_KEY_ID ${key ? `"${key}" ` : ''}may not use bucket "${bucket}" at ${where} (${detail}); grant it access or use other keys`
          : `${where} refused the credentials for bucket "${bucket}" (${detail}); check S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY`;
      }
      return `HeadBucket on "${bucket}" at ${where} answered ${status} (${(error as Error).name}); check the S3_* settings`;
    }
  }

  /**
   * STORAGE_UNAVAILABLE for a failed request. Clients read the S3 error code and status (or the network error's
   * code), not the store's address; the SDK's error is kept as the cause for the server log.
   */
  unavailable(error: unknown): Error {
    const status = statusOf(error);
    const code = (error as { code?: string }).code;
    const reason =
      status !== undefined
        ? `${(error as Error).name} (${status})`
        : `the store did not answer (${code ?? (error as Error).name})`;
    const failure = createError('STORAGE_UNAVAILABLE', { location: `bucket ${this.#options.bucket}`, reason });
    failure.cause = error;
    return failure;
  }
}

/** An area of an {@link S3Bucket}: objects under one key prefix. */
export class S3ObjectStore implements ObjectStore {
  readonly #bucket: S3Bucket;
  readonly #prefix: string;

  constructor(bucket: S3Bucket, prefix: string) {
    this.#bucket = bucket;
    this.#prefix = prefix;
  }

  get location(): string {
    return `s3://${this.#bucket.bucket}/${this.#prefix}`;
  }

  async put(key: string, body: Buffer | Readable): Promise<void> {
    // One PUT below the part size, a multipart upload above it (aborted on failure, so no parts are left).
    const upload = new Upload({
      client: this.#bucket.client,
      params: { Bucket: this.#bucket.bucket, Key: this.#prefix + key, Body: body },
      partSize: this.#bucket.partSize,
      queueSize: 2,
    });
    try {
      await upload.done();
    } catch (error) {
      throw this.#bucket.unavailable(error);
    }
  }

  async get(key: string): Promise<StoredObject | null> {
    try {
      const answer = await this.#bucket.client.send(
        new GetObjectCommand({ Bucket: this.#bucket.bucket, Key: this.#prefix + key }),
      );
      return { body: answer.Body as Readable, size: answer.ContentLength };
    } catch (error) {
      if (isAbsent(error)) return null;
      throw this.#bucket.unavailable(error);
    }
  }

  async has(key: string): Promise<boolean> {
    try {
      await this.#bucket.client.send(new HeadObjectCommand({ Bucket: this.#bucket.bucket, Key: this.#prefix + key }));
      return true;
    } catch (error) {
      if (isAbsent(error)) return false;
      throw this.#bucket.unavailable(error);
    }
  }

  async list(): Promise<string[]> {
    const keys: string[] = [];
    let token: string | undefined;
    try {
      do {
        const answer = await this.#bucket.client.send(
          new ListObjectsV2Command({ Bucket: this.#bucket.bucket, Prefix: this.#prefix, ContinuationToken: token }),
        );
        for (const object of answer.Contents ?? []) if (object.Key) keys.push(object.Key.slice(this.#prefix.length));
        token = answer.IsTruncated === true ? answer.NextContinuationToken : undefined;
      } while (token !== undefined);
    } catch (error) {
      throw this.#bucket.unavailable(error);
    }
    return keys;
  }

  async delete(keys: readonly string[]): Promise<void> {
    for (let start = 0; start < keys.length; start += 1000) {
      const batch = keys.slice(start, start + 1000);
      let answer;
      try {
        answer = await this.#bucket.client.send(
          new DeleteObjectsCommand({
            Bucket: this.#bucket.bucket,
            Delete: { Objects: batch.map((key) => ({ Key: this.#prefix + key })), Quiet: true },
          }),
        );
      } catch (error) {
        throw this.#bucket.unavailable(error);
      }
      const failed = (answer.Errors ?? []).filter((e) => e.Code !== 'NoSuchKey');
      if (failed.length > 0) {
        const first = failed[0]!;
        throw createError('STORAGE_UNAVAILABLE', {
          location: `bucket ${this.#bucket.bucket}`,
          reason: `${failed.length} object(s) could not be deleted, first ${first.Key ?? ''} (${first.Code ?? ''}: ${first.Message ?? ''})`,
        });
      }
    }
  }
}
