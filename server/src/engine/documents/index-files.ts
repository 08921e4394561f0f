import { closeSync, existsSync, fsyncSync, openSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Db } from '../storage/database.js';

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

/** Makes a file written by `write(tmp)` durable under `path`: written to a temporary name, fsynced, renamed. */
export function writeDurably(path: string, write: (tmp: string) => void): void {
  const tmp = `${path}.tmp`;
  write(tmp);
  const fd = openSync(tmp, 'r+');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, path);
  // The rename itself is durable once the folder is synced (a crash could otherwise bring back the old name).
  const dir = openSync(dirname(path), 'r');
  try {
    fsyncSync(dir);
  } finally {
    closeSync(dir);
  }
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

/**
 * The changed-rows log of the vector indexes: the keys each write transaction took out of a space (deleted,
 * replaced or purged documents), by generation. Insertions need no log: vector seqs only grow, so the vectors
 * added after a checkpoint are the live ones beyond its `through`. A checkpoint at generation G makes the log's
 * entries up to G useless, so they are pruned, and `logged_from` (in `vector_generations`) records from which
 * generation on the log is complete: a file of an older generation cannot be replayed and is rebuilt.
 */
export class RemovalLog {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  /** Records the keys a write took out of a space at `generation`. Call inside the write transaction. */
  record(tenantId: string, space: string, generation: number, keys: readonly number[]): void {
    if (keys.length === 0) return;
    this.#db
      .prepare('INSERT INTO vector_removals (tenant_id, space, generation, keys) VALUES (?, ?, ?, ?)')
      .run(tenantId, space, generation, Buffer.from(Float64Array.from(keys).buffer));
  }

  /** Whether every removal after `generation` is in the log (so a file of that generation can be replayed). */
  covers(tenantId: string, space: string, generation: number): boolean {
    const from = this.#db
      .prepare('SELECT logged_from FROM vector_generations WHERE tenant_id = ? AND model = ?')
      .pluck()
      .get(tenantId, space) as number | undefined;
    return generation >= (from ?? 0);
  }

  /** The keys taken out of a space after `generation`. */
  since(tenantId: string, space: string, generation: number): number[] {
    const rows = this.#db
      .prepare('SELECT keys FROM vector_removals WHERE tenant_id = ? AND space = ? AND generation > ?')
      .pluck()
      .all(tenantId, space, generation) as Buffer[];
    return rows.flatMap((b) => [...new Float64Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength))]);
  }

  /** Forgets the entries a durable checkpoint at `generation` holds. */
  prune(tenantId: string, space: string, generation: number): void {
    this.#db.transaction(() => {
      this.#db
        .prepare('DELETE FROM vector_removals WHERE tenant_id = ? AND space = ? AND generation <= ?')
        .run(tenantId, space, generation);
      this.#db
        .prepare('UPDATE vector_generations SET logged_from = max(logged_from, ?) WHERE tenant_id = ? AND model = ?')
        .run(generation, tenantId, space);
    })();
  }

  /**
   * Forgets a tenant's log after its rows were replaced (a tenant restore): the log is complete from the
   * restored generation on, so an index file of an older one is rebuilt rather than replayed.
   */
  forgetTenant(tenantId: string): void {
    this.#db.transaction(() => {
      this.#db.prepare('DELETE FROM vector_removals WHERE tenant_id = ?').run(tenantId);
      this.#db.prepare('UPDATE vector_generations SET logged_from = generation WHERE tenant_id = ?').run(tenantId);
    })();
  }

  /** Forgets a space entirely (its collection or vector is gone). */
  drop(tenantId: string, space: string): void {
    this.#db.prepare('DELETE FROM vector_removals WHERE tenant_id = ? AND space = ?').run(tenantId, space);
  }
}
