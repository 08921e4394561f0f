import type { Statement } from 'better-sqlite3';
import type { Db } from '../storage/database.js';
import type { SpaceSettings } from '../collections/vector-space.js';
import { vectorsPerSlice } from './vector-index-options.js';

/** A stored vector of a space: its seq (the index key), its document's seq and its float32 bytes. */
export interface StoredVector {
  readonly seq: number;
  readonly doc_seq: number;
  readonly vector: Buffer;
}

const alive = 'd.deleted_at IS NULL AND d.superseded = 0';

/**
 * The store's side of the vector indexes: every SQL statement they run. A space's vectors live in `chunks` (a
 * model's) or `document_vectors` (a collection's own); its generation, bumped by every write transaction, in
 * `vector_generations`. The indexes are derived from these rows and can always be rebuilt from them.
 *
 * @example const rows = new SpaceVectors(db, settingsOf); rows.countAfter(tenantId, 'use-lite-512', 0);
 */
export class SpaceVectors {
  readonly #db: Db;
  readonly #settings: (tenantId: string, space: string) => SpaceSettings;
  #bump?: Statement;
  #generation?: Statement;

  constructor(db: Db, settings: (tenantId: string, space: string) => SpaceSettings) {
    this.#db = db;
    this.#settings = settings;
  }

  /** Bumps and returns the generation of a space. Call inside the write transaction. */
  bumpGeneration(tenantId: string, space: string): number {
    this.#bump ??= this.#db
      .prepare(
        `INSERT INTO vector_generations (tenant_id, model, generation) VALUES (?, ?, 1)
           ON CONFLICT (tenant_id, model) DO UPDATE SET generation = generation + 1 RETURNING generation`,
      )
      .pluck();
    return this.#bump.get(tenantId, space) as number;
  }

  /** The store's generation of a space (0 before its first write). */
  generation(tenantId: string, space: string): number {
    // Prepared once: a search worker reads it at the start of every search.
    this.#generation ??= this.#db
      .prepare('SELECT generation FROM vector_generations WHERE tenant_id = ? AND model = ?')
      .pluck();
    return (this.#generation.get(tenantId, space) as number | undefined) ?? 0;
  }

  /** Every space that has a generation (so may have an index file). */
  spaces(): { tenantId: string; space: string }[] {
    const rows = this.#db.prepare('SELECT tenant_id, model FROM vector_generations').all() as {
      tenant_id: string;
      model: string;
    }[];
    return rows.map((r) => ({ tenantId: r.tenant_id, space: r.model }));
  }

  /** Forgets a space's generation (its collection or vector is gone). */
  dropGeneration(tenantId: string, space: string): void {
    this.#db.prepare('DELETE FROM vector_generations WHERE tenant_id = ? AND model = ?').run(tenantId, space);
  }

  /** Stored vectors of a space by key (the tail's, when the float32 copies are not kept). */
  byKey(tenantId: string, space: string, keys: readonly number[]): Map<number, Buffer> {
    const source = this.#settings(tenantId, space).source;
    const table = source.kind === 'chunks' ? 'chunks' : 'document_vectors';
    const rows = this.#db
      .prepare(`SELECT seq, vector FROM ${table} WHERE seq IN (SELECT value FROM json_each(?))`)
      .all(JSON.stringify(keys)) as { seq: number; vector: Buffer }[];
    return new Map(rows.map((r) => [r.seq, r.vector]));
  }

  /** Live vectors of a space after a seq (what a build from there reads). */
  countAfter(tenantId: string, space: string, through: number): number {
    const source = this.#settings(tenantId, space).source;
    if (source.kind === 'chunks') {
      return this.#db
        .prepare(
          `SELECT count(*) FROM chunks c JOIN documents d ON d.seq = c.doc_seq
           WHERE c.tenant_id = ? AND c.model = ? AND c.vector IS NOT NULL AND ${alive} AND c.seq > ?`,
        )
        .pluck()
        .get(tenantId, source.model, through) as number;
    }
    return this.#db
      .prepare(
        `SELECT count(*) FROM document_vectors v JOIN documents d ON d.seq = v.doc_seq
         WHERE v.tenant_id = ? AND v.collection = ? AND v.name = ? AND ${alive} AND v.seq > ?`,
      )
      .pluck()
      .get(tenantId, source.collection, source.name, through) as number;
  }

  /** The highest vector seq a space has ever stored (dead ones included). */
  maxSeq(tenantId: string, space: string): number {
    const source = this.#settings(tenantId, space).source;
    const found =
      source.kind === 'chunks'
        ? this.#db
            .prepare('SELECT max(seq) FROM chunks WHERE tenant_id = ? AND model = ?')
            .pluck()
            .get(tenantId, source.model)
        : this.#db
            .prepare('SELECT max(seq) FROM document_vectors WHERE tenant_id = ? AND collection = ? AND name = ?')
            .pluck()
            .get(tenantId, source.collection, source.name);
    return (found as number | null) ?? 0;
  }

  /** Live vectors of a space after a seq, in seq order, one slice at a time. */
  page(tenantId: string, space: string): (through: number) => StoredVector[] {
    const source = this.#settings(tenantId, space).source;
    if (source.kind === 'chunks') {
      const statement = this.#db.prepare(
        `SELECT c.seq, c.doc_seq, c.vector FROM chunks c JOIN documents d ON d.seq = c.doc_seq
         WHERE c.tenant_id = ? AND c.model = ? AND c.vector IS NOT NULL AND ${alive} AND c.seq > ?
         ORDER BY c.seq LIMIT ${vectorsPerSlice}`,
      );
      return (through) => statement.all(tenantId, source.model, through) as StoredVector[];
    }
    const statement = this.#db.prepare(
      `SELECT v.seq, v.doc_seq, v.vector FROM document_vectors v JOIN documents d ON d.seq = v.doc_seq
       WHERE v.tenant_id = ? AND v.collection = ? AND v.name = ? AND ${alive} AND v.seq > ?
       ORDER BY v.seq LIMIT ${vectorsPerSlice}`,
    );
    return (through) => statement.all(tenantId, source.collection, source.name, through) as StoredVector[];
  }

  /** The live vectors of a space after a seq, in seq order (an index's tail, from the store). */
  after(tenantId: string, space: string, through: number): IterableIterator<StoredVector> {
    const source = this.#settings(tenantId, space).source;
    if (source.kind === 'chunks') {
      return this.#db
        .prepare(
          `SELECT c.seq, c.doc_seq, c.vector FROM chunks c JOIN documents d ON d.seq = c.doc_seq
           WHERE c.tenant_id = ? AND c.model = ? AND c.vector IS NOT NULL AND ${alive} AND c.seq > ? ORDER BY c.seq`,
        )
        .iterate(tenantId, source.model, through) as IterableIterator<StoredVector>;
    }
    return this.#db
      .prepare(
        `SELECT v.seq, v.doc_seq, v.vector FROM document_vectors v JOIN documents d ON d.seq = v.doc_seq
         WHERE v.tenant_id = ? AND v.collection = ? AND v.name = ? AND ${alive} AND v.seq > ? ORDER BY v.seq`,
      )
      .iterate(tenantId, source.collection, source.name, through) as IterableIterator<StoredVector>;
  }

  /** Every live vector of a space, in seq order. */
  all(tenantId: string, space: string): IterableIterator<StoredVector> {
    const source = this.#settings(tenantId, space).source;
    if (source.kind === 'chunks') {
      return this.#db
        .prepare(
          `SELECT c.seq, c.doc_seq, c.vector FROM chunks c JOIN documents d ON d.seq = c.doc_seq
           WHERE c.tenant_id = ? AND c.model = ? AND c.vector IS NOT NULL AND ${alive}`,
        )
        .iterate(tenantId, source.model) as IterableIterator<StoredVector>;
    }
    return this.#db
      .prepare(
        `SELECT v.seq, v.doc_seq, v.vector FROM document_vectors v JOIN documents d ON d.seq = v.doc_seq
         WHERE v.tenant_id = ? AND v.collection = ? AND v.name = ? AND ${alive}`,
      )
      .iterate(tenantId, source.collection, source.name) as IterableIterator<StoredVector>;
  }
}
