import { createError } from '@godb/contract';
import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { link, mkdir, readdir, rename, rm, rmdir, stat, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { syncFile, syncFoldersUpTo } from '../storage/durable-files.js';
import type { ObjectStore, StoredObject } from './object-store.js';

const isMissing = (error: unknown) => (error as NodeJS.ErrnoException).code === 'ENOENT';

/**
 * The `internal` storage provider: one file per object under a folder (DATA_DIR/files for uploaded files). A
 * write goes to a hidden temporary file, fsynced and renamed into place (its folders fsynced too), so a reader never
 * sees half an object and a put that answered survives a power cut; emptied folders are removed with their last
 * object.
 */
export class LocalObjectStore implements ObjectStore {
  readonly location: string;

  constructor(root: string) {
    this.location = resolve(root);
  }

  #path(key: string): string {
    const path = join(this.location, ...key.split('/'));
    // Keys are built by GoDB from encoded ids; this only guards against a programming error.
    if (relative(this.location, path).startsWith('..')) throw new TypeError(`object key outside the store: ${key}`);
    return path;
  }

  #unavailable(error: unknown): Error {
    const failure = createError('STORAGE_UNAVAILABLE', {
      location: this.location,
      reason: (error as NodeJS.ErrnoException).code ?? (error as Error).name,
    });
    failure.cause = error;
    return failure;
  }

  async put(key: string, body: Buffer | Readable): Promise<void> {
    const target = this.#path(key);
    // Written at the root, which a delete never removes: in the object's own folder, a delete of that folder's last
    // other object could remove it between the folder's creation and the write (ENOENT, the put lost).
    const partial = join(this.location, `.${randomUUID()}.partial`);
    try {
      await mkdir(this.location, { recursive: true });
      if (Buffer.isBuffer(body)) await writeFile(partial, body);
      else await pipeline(body, createWriteStream(partial));
      // On the disk before it is named, and named durably before the caller records the key (a row committed
      // after a power cut must not name a file that is missing or empty).
      await syncFile(partial);
      await this.#place(partial, target);
    } catch (error) {
      await rm(partial, { force: true });
      throw this.#unavailable(error);
    }
  }

  /** A hard link: an object is never changed in place (put renames a new file over the name), so both stay whole. */
  async copy(from: string, to: string): Promise<void> {
    const partial = join(this.location, `.${randomUUID()}.partial`);
    try {
      await link(this.#path(from), partial);
      await this.#place(partial, this.#path(to));
    } catch (error) {
      await rm(partial, { force: true });
      throw this.#unavailable(error);
    }
  }

  /** Names a synced file at the store's root `target`, durably. */
  async #place(partial: string, target: string): Promise<void> {
    // The folder again if a delete removed it, emptied, between the two steps (the partial is ours alone). A delete
    // can also remove a parent that a recursive mkdir has just made, before it makes the child: ENOENT from mkdir.
    for (let attempt = 1; ; attempt += 1) {
      const moved = await mkdir(dirname(target), { recursive: true })
        .then(() => rename(partial, target))
        .then(
          () => true,
          (error: unknown) => {
            if (!isMissing(error) || attempt >= 10) throw error;
            return false;
          },
        );
      if (moved) break;
    }
    await syncFoldersUpTo(dirname(target), dirname(this.location));
  }

  async get(key: string): Promise<StoredObject | null> {
    const path = this.#path(key);
    try {
      const { size } = await stat(path);
      return { body: createReadStream(path), size };
    } catch (error) {
      if (isMissing(error)) return null;
      throw this.#unavailable(error);
    }
  }

  async has(key: string): Promise<boolean> {
    return (await stat(this.#path(key)).catch(() => null))?.isFile() === true;
  }

  async list(): Promise<string[]> {
    try {
      const entries = await readdir(this.location, { recursive: true, withFileTypes: true });
      return entries
        .filter((entry) => entry.isFile() && !entry.name.endsWith('.partial'))
        .map((entry) => relative(this.location, join(entry.parentPath, entry.name)).split(sep).join('/'));
    } catch (error) {
      if (isMissing(error)) return [];
      throw this.#unavailable(error);
    }
  }

  async delete(keys: readonly string[]): Promise<void> {
    for (const key of keys) {
      const path = this.#path(key);
      try {
        await rm(path, { force: true });
      } catch (error) {
        throw this.#unavailable(error);
      }
      // Then the folders it leaves empty, up to the root (rmdir refuses a folder that is not empty).
      for (let dir = dirname(path); dir !== this.location && dir.startsWith(this.location + sep); dir = dirname(dir)) {
        if (
          !(await rmdir(dir).then(
            () => true,
            () => false,
          ))
        )
          break;
      }
    }
  }
}
