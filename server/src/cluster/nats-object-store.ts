import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { createError } from '@godb/contract';
import { Objm, StorageType, type ObjectStore as NatsBucket } from '@nats-io/obj';
import type { NatsConnection } from '@nats-io/transport-node';
import type { ObjectStore, StoredObject } from '../engine/files/object-store.js';
import { retryAtStart, type StartLogger } from './start-retries.js';

/** The JetStream object store bucket holding the cluster snapshots (STORAGE_PROVIDER=internal). */
export const snapshotBucket = 'godb-snapshots';

const unavailable = (location: string, error: unknown) =>
  createError('STORAGE_UNAVAILABLE', { location, reason: (error as Error).message });

/**
 * The engine's {@link ObjectStore} on a JetStream object store bucket (file storage, replicated like the log), so
 * every node of the cluster can fetch what one node stored: the cluster snapshots when the storage provider is
 * `internal`. NATS checks each object's SHA-256 digest as it is read; a read that fails part way errors its stream.
 *
 * @example const store = await NatsObjectStore.open(nc, 'godb-snapshots', 3, logger); await store.put('a.tar', body);
 */
export class NatsObjectStore implements ObjectStore {
  readonly #bucket: NatsBucket;
  readonly location: string;

  private constructor(bucket: NatsBucket, name: string) {
    this.#bucket = bucket;
    this.location = `nats-object-store://${name}`;
  }

  /** Opens (or makes) the bucket, retried while JetStream does not answer (see retryAtStart). */
  static async open(nc: NatsConnection, name: string, replicas: number, logger: StartLogger): Promise<NatsObjectStore> {
    const bucket = await retryAtStart(
      `opening the object store ${name}`,
      () => new Objm(nc).create(name, { storage: StorageType.File, replicas }),
      logger,
    );
    return new NatsObjectStore(bucket, name);
  }

  async put(key: string, body: Buffer | Readable): Promise<void> {
    const source = Buffer.isBuffer(body) ? Readable.from([body]) : body;
    try {
      await this.#bucket.put({ name: key }, Readable.toWeb(source) as unknown as ReadableStream<Uint8Array>);
    } catch (error) {
      throw unavailable(this.location, error);
    }
  }

  async get(key: string): Promise<StoredObject | null> {
    let result;
    try {
      result = await this.#bucket.get(key);
    } catch (error) {
      throw unavailable(this.location, error);
    }
    if (!result || result.info.deleted) return null;
    const { error } = result;
    const body = Readable.fromWeb(result.data as unknown as WebReadableStream<Uint8Array>);
    // A digest that does not match, or chunks that stopped coming, end the stream with the error.
    void error.then((failed) => {
      if (failed) body.destroy(failed);
    });
    return { body, size: result.info.size };
  }

  async has(key: string): Promise<boolean> {
    try {
      const info = await this.#bucket.info(key);
      return info !== null && !info.deleted;
    } catch (error) {
      throw unavailable(this.location, error);
    }
  }

  async list(): Promise<string[]> {
    try {
      return (await this.#bucket.list()).filter((info) => !info.deleted).map((info) => info.name);
    } catch (error) {
      throw unavailable(this.location, error);
    }
  }

  async delete(keys: readonly string[]): Promise<void> {
    for (const key of keys) {
      try {
        if (await this.has(key)) await this.#bucket.delete(key);
      } catch (error) {
        throw unavailable(this.location, error);
      }
    }
  }
}
