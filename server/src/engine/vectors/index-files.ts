import { closeSync, existsSync, openSync, readFileSync, readSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { crc32 } from 'node:zlib';
import { writeDurably } from '../storage/durable-files.js';

/**
 * What an index file's metadata records: the store's generation of the space when it was saved, and `through`, the
 * highest vector seq it reflects (every vector of the space up to it is in the file if it was alive at that
 * generation, and absent otherwise). Files written before checkpoints existed have no `through`.
 */
export interface IndexMeta {
  readonly generation: number;
  readonly dims: number;
  readonly count: number;
  readonly through?: number;
  /** The index file's length and CRC-32, checked before it is loaded (absent from files saved before they were). */
  readonly bytes?: number;
  readonly crc32?: number;
  /**
   * The check of the file a save is about to rename into place, written before it (see save): a crash between the
   * index's rename and its metadata's leaves the newer file beside this metadata, which accepts it.
   */
  readonly next?: FileCheck;
}

/** A file's length and CRC-32 (zlib's). */
export interface FileCheck {
  readonly bytes: number;
  readonly crc32: number;
}

/** The metadata beside an index file, or undefined when it is missing or unreadable (the file is then not trusted). */
export function readMeta(path: string): IndexMeta | undefined {
  if (!existsSync(path)) return undefined;
  try {
    const meta = JSON.parse(readFileSync(path, 'utf8')) as Partial<IndexMeta>;
    if (typeof meta.generation !== 'number' || typeof meta.dims !== 'number') return undefined;
    return {
      generation: meta.generation,
      dims: meta.dims,
      count: meta.count ?? 0,
      ...(typeof meta.through === 'number' && { through: meta.through }),
      ...(typeof meta.bytes === 'number' && typeof meta.crc32 === 'number' && { bytes: meta.bytes, crc32: meta.crc32 }),
      ...(typeof meta.next?.bytes === 'number' &&
        typeof meta.next.crc32 === 'number' && { next: { bytes: meta.next.bytes, crc32: meta.next.crc32 } }),
    };
  } catch {
    return undefined;
  }
}

export function writeMeta(path: string, meta: IndexMeta): void {
  writeDurably(path, (tmp) => writeFileSync(tmp, JSON.stringify(meta)));
}

/** The length and CRC-32 of a file, read in 16 MiB slices: ~0.3 s per GB from the page cache. */
export function fileCheck(path: string): FileCheck {
  const fd = openSync(path, 'r');
  try {
    const slice = Buffer.allocUnsafe(16 * 1024 * 1024);
    let bytes = 0;
    let checksum = 0;
    for (let read = readSync(fd, slice); read > 0; read = readSync(fd, slice)) {
      checksum = crc32(slice.subarray(0, read), checksum);
      bytes += read;
    }
    return { bytes, crc32: checksum };
  } finally {
    closeSync(fd);
  }
}

/**
 * Which check its metadata records the file at `path` has: the saved file's, or `next`, the one a save was renaming
 * into place; `unchecked` when the metadata records none (saved before checksums); null when neither (the file's
 * bytes changed on disk). usearch loads such a file without complaint and answers wrong neighbours from it, or aborts
 * the process: it is never loaded. Throws when the file cannot be read.
 */
export function matchingCheck(path: string, meta: IndexMeta): FileCheck | 'unchecked' | null {
  if (meta.bytes === undefined || meta.crc32 === undefined) return 'unchecked';
  const size = statSync(path).size;
  const expected = [{ bytes: meta.bytes, crc32: meta.crc32 }, ...(meta.next ? [meta.next] : [])].filter(
    (check) => check.bytes === size,
  );
  if (expected.length === 0) return null;
  const { crc32: actual } = fileCheck(path);
  return expected.find((check) => check.crc32 === actual) ?? null;
}

/** Leftovers of a save that a crash interrupted: never trusted, removed before a load. */
export function removeTemporary(path: string): void {
  rmSync(`${path}.tmp`, { force: true });
}
