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
 * True when the file at `path` has the length and CRC-32 its metadata recorded, or the metadata recorded none. usearch
 * loads a file whose bytes changed on disk without complaint and answers wrong neighbours from it, or aborts the
 * process: a file that differs is never loaded.
 */
export function matchesCheck(path: string, meta: IndexMeta): boolean {
  if (meta.bytes === undefined || meta.crc32 === undefined) return true;
  if (statSync(path).size !== meta.bytes) return false;
  return fileCheck(path).crc32 === meta.crc32;
}

/** Leftovers of a save that a crash interrupted: never trusted, removed before a load. */
export function removeTemporary(path: string): void {
  rmSync(`${path}.tmp`, { force: true });
}
