import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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
    };
  } catch {
    return undefined;
  }
}

export function writeMeta(path: string, meta: IndexMeta): void {
  writeDurably(path, (tmp) => writeFileSync(tmp, JSON.stringify(meta)));
}

/** Leftovers of a save that a crash interrupted: never trusted, removed before a load. */
export function removeTemporary(path: string): void {
  rmSync(`${path}.tmp`, { force: true });
}
