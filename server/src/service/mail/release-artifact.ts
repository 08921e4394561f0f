import { createError } from '@godb/contract';
import { randomUUID } from 'node:crypto';
import { EventEmitter, once } from 'node:events';
import { createReadStream, existsSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { open, rename, rm, type FileHandle } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import type { ObjectStore } from '../../engine/files/object-store.js';
import { missingForRelease, releaseEntries, type ReleaseSources } from './release-files.js';
import { tarStream } from './tar-stream.js';

export interface ReleaseLog {
  info(obj: object, message: string): void;
  error(obj: object, message: string): void;
}

/** A build's file while it is written: hidden, and named so a crash's leftover can be recognised. */
const partialName = /^\.[0-9a-f-]{36}\.partial$/;
/** A partial file unchanged for this long belongs to a build that died (a live one writes every few ms). */
const abandonedAfterMs = 10 * 60 * 1000;

/** A build in progress: the tarball grows in `partial` and is renamed into place once complete. */
interface Build {
  readonly partial: string;
  readonly events: EventEmitter;
  written: number;
  done: boolean;
  error: Error | null;
}

/** Writes to a file, counting the bytes that reached it and telling followers after each write. */
function counting(handle: FileHandle, build: Build): Writable {
  return new Writable({
    write(chunk: Buffer, _encoding, callback) {
      handle.write(chunk).then(({ bytesWritten }) => {
        build.written += bytesWritten;
        build.events.emit('progress');
        callback();
      }, callback);
    },
    final(callback) {
      // On the disk before it is renamed: a power cut must not leave a release cut short under its final name.
      handle
        .sync()
        .then(() => handle.close())
        .then(() => callback(), callback);
    },
  });
}

/** The bytes of a build in progress, read from its file as they arrive, until it is complete (or fails). */
async function* follow(build: Build, handle: FileHandle): AsyncGenerator<Buffer> {
  for (let position = 0; ;) {
    if (build.written > position) {
      const buffer = Buffer.allocUnsafe(Math.min(build.written - position, 1 << 20));
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, position);
      position += bytesRead;
      yield buffer.subarray(0, bytesRead);
      continue;
    }
    if (build.error) throw build.error;
    if (build.done) return;
    await once(build.events, 'progress');
  }
}

/**
 * The release tarball behind the mailed download link, `RELEASE_DIR/godb-<version>.tar.gz`. When it is missing (a
 * default install never ran `npm run package`), the first download builds it from this install's own built files
 * and streams it as it is written: no wait, no retry. Every download during that build follows the same file, and
 * the file is renamed into place only once complete, so later downloads are served from disk and a failed or
 * interrupted build leaves nothing half-written behind. A visitor who leaves does not stop the build.
 *
 * With STORAGE_PROVIDER=s3 the bucket's `releases/` area is where a finished archive is kept for every server
 * that shares the bucket: an archive on this server's disk (built here, or written by `npm run package`) is
 * copied there once, and a server without one serves the bucket's copy before it would build its own.
 */
export class ReleaseArtifact {
  readonly #dir: string;
  readonly #sources: () => ReleaseSources;
  readonly #log: ReleaseLog | undefined;
  readonly #shared: ObjectStore | null;
  /** Archives copied (or being copied) to the shared store by this process. */
  readonly #sharing = new Map<string, Promise<void>>();
  #build: Build | null = null;

  constructor(dir: string, sources: () => ReleaseSources, log?: ReleaseLog, shared: ObjectStore | null = null) {
    this.#dir = dir;
    this.#sources = sources;
    this.#log = log;
    this.#shared = shared;
  }

  /** Copies a finished archive to the shared store once, in the background (a failure is logged and retried later). */
  #share(file: string, path: string): void {
    const shared = this.#shared;
    if (!shared || this.#sharing.has(file)) return;
    const copy = (async () => {
      if (await shared.has(file)) return;
      await shared.put(file, createReadStream(path));
      this.#log?.info({ file, location: shared.location }, 'release copied to the shared store');
    })().catch((error: unknown) => {
      this.#sharing.delete(file);
      this.#log?.error({ err: error, file, location: shared.location }, 'the release could not be copied');
    });
    this.#sharing.set(file, copy);
  }

  /**
   * The path of `file` when it is on disk, else a stream of it as it is built. Throws NOT_FOUND when `file` is not
   * this version's release and it is absent, or when this install lacks what a release is made from.
   */
  async open(file: string): Promise<string | Readable> {
    const path = join(this.#dir, file);
    if (existsSync(path)) {
      this.#share(file, path);
      return path;
    }
    const stored = await this.#shared?.get(file);
    if (stored) return stored.body;
    const sources = this.#sources();
    if (file !== `godb-${sources.version}.tar.gz`)
      throw createError('NOT_FOUND', {
        resource: 'Release',
        id: `${file} (this server provides godb-${sources.version}.tar.gz)`,
      });
    const missing = missingForRelease(sources);
    if (missing !== null)
      throw createError('NOT_FOUND', {
        resource: 'Release',
        id: `${file} (it cannot be built here: ${missing} is missing; the operator can run npm run package)`,
      });
    const build = this.#build ?? (await this.#start(path, sources));
    try {
      const handle = await open(build.partial, 'r');
      const stream = Readable.from(follow(build, handle));
      // On 'close', however the download ended (complete, failed, or its visitor gone before the first byte).
      stream.once('close', () => void handle.close().catch(() => undefined));
      return stream;
    } catch (error) {
      // The build ended (its file renamed into place, or removed after a failure) before this download joined it.
      if (build.done && existsSync(path)) return path;
      throw build.error ?? error;
    }
  }

  async #start(path: string, sources: ReleaseSources): Promise<Build> {
    mkdirSync(this.#dir, { recursive: true });
    for (const name of readdirSync(this.#dir).filter((n) => partialName.test(n))) {
      const leftover = join(this.#dir, name);
      if (statSync(leftover).mtimeMs < sources.now - abandonedAfterMs) rmSync(leftover, { force: true });
    }
    const build: Build = {
      partial: join(this.#dir, `.${randomUUID()}.partial`),
      events: new EventEmitter().setMaxListeners(0),
      written: 0,
      done: false,
      error: null,
    };
    // Created before the build is visible, so a download that joins it can open the file at once.
    writeFileSync(build.partial, '');
    this.#build = build;
    const handle = await open(build.partial, 'r+').catch((error: unknown) => {
      this.#build = null;
      throw error;
    });
    this.#log?.info({ file: path }, 'building the release on its first download');
    void (async () => {
      try {
        await pipeline(Readable.from(tarStream(await releaseEntries(sources))), createGzip(), counting(handle, build));
        await rename(build.partial, path);
        build.done = true;
        this.#share(basename(path), path);
        this.#log?.info({ file: path, bytes: build.written }, 'release built');
      } catch (error) {
        build.error = error as Error;
        await handle.close().catch(() => undefined);
        await rm(build.partial, { force: true });
        this.#log?.error({ err: error, file: path }, 'the release could not be built');
      } finally {
        this.#build = null;
        build.events.emit('progress');
      }
    })();
    return build;
  }
}
