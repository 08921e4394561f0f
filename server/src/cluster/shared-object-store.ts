import type { Readable } from 'node:stream';
import type { ObjectStore, StoredObject } from '../engine/files/object-store.js';

/** The JetStream object store bucket holding the files uploaded with documents in cluster mode (STORAGE_PROVIDER=internal). */
export const filesBucket = 'godb-files';
/** The JetStream object store bucket holding the tenant and node snapshots users take in cluster mode (internal). */
export const tenantSnapshotsBucket = 'godb-tenant-snapshots';

/**
 * A store every node of the cluster reads, for a node whose provider is `internal`: a JetStream object store bucket
 * (`godb-files` for the files uploaded with documents, so a file uploaded on one node downloads from any;
 * `godb-tenant-snapshots` for the snapshots users take). The engine opens before the node connects to NATS, so the
 * bucket is handed over once the log is open (`attach`); a call made before waits for it.
 *
 * @example const files = new SharedObjectStore(filesBucket); openEngine({ files }); files.attach(await NatsObjectStore.open(nc, filesBucket, 3, logger));
 */
export class SharedObjectStore implements ObjectStore {
  readonly location: string;
  readonly bucket: string;
  readonly #store: Promise<ObjectStore>;
  #attach: (store: ObjectStore) => void = () => undefined;

  constructor(bucket: string) {
    this.bucket = bucket;
    this.location = `nats-object-store://${bucket}`;
    this.#store = new Promise((resolve) => {
      this.#attach = resolve;
    });
  }

  /** Hands over the bucket once NATS is connected. */
  attach(store: ObjectStore): void {
    this.#attach(store);
  }

  async put(key: string, body: Buffer | Readable): Promise<void> {
    return (await this.#store).put(key, body);
  }

  async get(key: string): Promise<StoredObject | null> {
    return (await this.#store).get(key);
  }

  async has(key: string): Promise<boolean> {
    return (await this.#store).has(key);
  }

  async list(): Promise<string[]> {
    return (await this.#store).list();
  }

  async delete(keys: readonly string[]): Promise<void> {
    return (await this.#store).delete(keys);
  }
}
