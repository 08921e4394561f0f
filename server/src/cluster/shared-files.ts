import type { Readable } from 'node:stream';
import type { ObjectStore, StoredObject } from '../engine/files/object-store.js';

/** The JetStream object store bucket holding the files uploaded with documents in cluster mode (STORAGE_PROVIDER=internal). */
export const filesBucket = 'godb-files';

/**
 * The files store of a cluster node whose provider is `internal`: the JetStream object store `godb-files`, which
 * every node reads, so a file uploaded on one node downloads from any. The engine opens before the node connects to
 * NATS, so the store is handed over once the log is open (`attach`); a call made before waits for it.
 *
 * @example const files = new SharedFiles(); openEngine({ files }); files.attach(await NatsObjectStore.open(nc, filesBucket, 3));
 */
export class SharedFiles implements ObjectStore {
  readonly location = `nats-object-store://${filesBucket}`;
  readonly #store: Promise<ObjectStore>;
  #attach: (store: ObjectStore) => void = () => undefined;

  constructor() {
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
