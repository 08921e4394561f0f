import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';

/** An object read back from a store: its bytes as a stream, and its size when the store knows it. */
export interface StoredObject {
  readonly body: Readable;
  readonly size: number | undefined;
}

/**
 * Where GoDB keeps bytes that are not rows: uploaded document files, release archives, later snapshots. One
 * store per area (files, releases …), so a key never needs to say which area it is in. Keys are `/`-separated
 * and built by GoDB from encoded ids, never from raw client input. The two providers are the `internal` one (a
 * folder, {@link LocalObjectStore}) and `s3` ({@link S3ObjectStore}); both throw `STORAGE_UNAVAILABLE` when the
 * store cannot be used, and answer "absent" (null, or nothing to do) for a key that is not there.
 *
 * @example
 *   await store.put('t/doc/1f0c…', Buffer.from('hello'));
 *   (await store.get('t/doc/1f0c…'))?.body.pipe(response);
 *   await store.delete(['t/doc/1f0c…']);
 */
export interface ObjectStore {
  /** Where the objects are, for messages and logs: a folder, or `s3://bucket/prefix`. */
  readonly location: string;
  /** Writes the object whole (a stream of unknown length is fine; large ones go in parts where the store can). */
  put(key: string, body: Buffer | Readable): Promise<void>;
  /** The object, or null when there is none under `key`. */
  get(key: string): Promise<StoredObject | null>;
  /** Whether an object is under `key`. */
  has(key: string): Promise<boolean>;
  /** Every key in the store (the area), in no particular order. */
  list(): Promise<string[]>;
  /** Removes the objects (missing ones are not an error). */
  delete(keys: readonly string[]): Promise<void>;
  /**
   * Makes `to` hold what `from` holds, without reading it through the caller, where the store can (a folder: a
   * hard link, objects being immutable once put); absent: callers copy with get and put.
   */
  copy?(from: string, to: string): Promise<void>;
}

/** A key segment for an id: its URI encoding, or a digest when that would not fit a file name (255 bytes). */
export function keySegment(id: string): string {
  const encoded = encodeURIComponent(id);
  return encoded.length <= 200 ? encoded : `~${createHash('sha256').update(id).digest('hex')}`;
}
