import type { AclEntry } from '@godb/contract';
import type { Db } from '../storage/database.js';
import { StatementCache } from '../storage/statement-cache.js';
import { SparsePostings } from '../sparse/sparse-posting-rows.js';
import { FieldLists } from '../field-indexes/field-lists.js';
import type { TextIndex } from '../text/text-index.js';
import type { AccessEntry, ChunkRow, DocumentFields, DocumentRow, PreparedDocument } from './types.js';

export interface WrittenChunk {
  readonly key: number;
  /** The document's seq. */
  readonly doc: number;
  readonly vector: Float32Array;
}

const vectorBlob = (v: Float32Array) => Buffer.from(v.buffer, v.byteOffset, v.byteLength);

/** SQL of the documents store. Every method runs inside the caller's transaction when there is one. */
export class DocumentStore {
  readonly #sql: StatementCache;
  readonly #text: TextIndex;
  readonly #sparse: SparsePostings;
  readonly #fieldLists: FieldLists;

  constructor(db: Db, text: TextIndex) {
    this.#sql = new StatementCache(db);
    this.#text = text;
    this.#sparse = SparsePostings.of(db);
    this.#fieldLists = FieldLists.of(db);
  }

  /** The current version of a document (soft-deleted ones included), by tenant and id. */
  row(tenantId: string, id: string): DocumentRow | undefined {
    return this.#sql.get('SELECT * FROM documents WHERE tenant_id = ? AND id = ?').get(tenantId, id) as
      DocumentRow | undefined;
  }

  rowBySeq(seq: number): DocumentRow | undefined {
    return this.#sql.get('SELECT * FROM documents WHERE seq = ?').get(seq) as DocumentRow | undefined;
  }

  access(docSeq: number): AccessEntry[] {
    return this.#sql
      .get('SELECT principal, role, expires_at FROM document_access WHERE doc_seq = ? ORDER BY role, principal')
      .all(docSeq) as AccessEntry[];
  }

  chunks(docSeq: number): ChunkRow[] {
    return this.#sql.get('SELECT * FROM chunks WHERE doc_seq = ? ORDER BY chunk_index').all(docSeq) as ChunkRow[];
  }

  /** Ids of the live documents whose parent is `id`; with `deleted`, the soft-deleted ones too. */
  childIds(tenantId: string, id: string, options: { deleted?: boolean } = {}): string[] {
    // By the parent index: for the ORDER BY, SQLite chose the tenant's (tenant_id, id) index and read every document
    // of the tenant per call — each document read with its children made a page of 1,000 cost seconds.
    return this.#sql
      .get(
        `SELECT id FROM documents INDEXED BY documents_parent WHERE tenant_id = ? AND parent_doc_id = ?
           AND superseded = 0 AND (deleted_at IS NULL OR ?) ORDER BY id`,
      )
      .pluck()
      .all(tenantId, id, options.deleted ? 1 : 0) as string[];
  }

  /** Renames the current version to `id@v<version>` and takes it out of the indexes; returns its chunk keys. */
  archive(row: DocumentRow): number[] {
    const archivedId = `${row.id}@v${row.version}`;
    this.#sql.get('UPDATE documents SET id = ?, superseded = 1 WHERE seq = ?').run(archivedId, row.seq);
    return this.#unindex(row.seq);
  }

  /** Inserts a document with its chunks, access entries and index rows; returns the new seq and chunk keys. */
  insert(
    tenantId: string,
    ownerId: string,
    doc: PreparedDocument,
    version: number,
    now: number,
    fields: DocumentFields,
  ): { seq: number; chunks: WrittenChunk[] } {
    const [lat, lon] = doc.location ?? [null, null];
    const seq = Number(
      this.#sql
        .get(
          `INSERT INTO documents (tenant_id, id, owner_id, version, visibility, primary_table, parent_doc_id, title, content,
             lat, lon, model, created_at, updated_at, indexed_at, fields)
           VALUES (@tenant, @id, @owner, @version, @visibility, @table, @parent, @title, @content, @lat, @lon, @model, @created, @updated, @indexed, @fields)`,
        )
        .run({
          tenant: tenantId,
          id: doc.id,
          owner: ownerId,
          version,
          visibility: doc.visibility,
          table: doc.primaryTable,
          parent: doc.parentDocId ?? null,
          title: doc.title,
          content: doc.content,
          lat,
          lon,
          model: doc.model,
          created: doc.createdAt ?? now,
          updated: doc.updatedAt ?? now,
          indexed: now,
          fields: JSON.stringify(fields),
        }).lastInsertRowid,
    );
    // A new seq (AUTOINCREMENT, never reused) has no access rows yet: nothing to delete first.
    this.#insertAccess(seq, doc.acl, fields.access_list ?? []);
    if (lat !== null && lon !== null) {
      this.#sql
        .get('INSERT INTO geo_rtree (doc_seq, min_lat, max_lat, min_lon, max_lon) VALUES (?, ?, ?, ?, ?)')
        .run(seq, lat, lat, lon, lon);
    }
    const insertChunk = this.#sql.get(
      `INSERT INTO chunks (doc_seq, tenant_id, chunk_index, content, start_offset, end_offset, model, vector)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    const written: WrittenChunk[] = [];
    doc.chunks.forEach((chunk, index) => {
      const key = Number(
        insertChunk.run(
          seq,
          tenantId,
          index,
          chunk.content,
          chunk.start,
          chunk.end,
          chunk.vector ? doc.model : null,
          chunk.vector ? vectorBlob(chunk.vector) : null,
        ).lastInsertRowid,
      );
      this.#text.insert(tenantId, key, seq, doc.title, chunk.content, doc.visibility === 'public', fields.lang_code);
      if (chunk.vector) written.push({ key, doc: seq, vector: chunk.vector });
    });
    return { seq, chunks: written };
  }

  /** Stores the vectors a client gave with a document; returns their keys in their spaces' indexes. */
  insertVectors(
    seq: number,
    tenantId: string,
    collection: string,
    vectors: readonly { name: string; space: string | null; vector: Float32Array }[],
  ): { space: string | null; chunk: WrittenChunk }[] {
    const insert = this.#sql.get(
      'INSERT INTO document_vectors (doc_seq, tenant_id, collection, name, vector) VALUES (?, ?, ?, ?, ?)',
    );
    return vectors.map((v) => ({
      space: v.space,
      chunk: {
        key: Number(insert.run(seq, tenantId, collection, v.name, vectorBlob(v.vector)).lastInsertRowid),
        doc: seq,
        vector: v.vector,
      },
    }));
  }

  /** The client vectors of a document version, by name, with their keys. */
  vectors(seq: number): { seq: number; collection: string; name: string; vector: Buffer }[] {
    return this.#sql
      .get('SELECT seq, collection, name, vector FROM document_vectors WHERE doc_seq = ? ORDER BY name')
      .all(seq) as { seq: number; collection: string; name: string; vector: Buffer }[];
  }

  /** The names of the client vectors of a document version (no vector read). */
  vectorNames(seq: number): string[] {
    return this.#sql
      .get('SELECT name FROM document_vectors WHERE doc_seq = ? ORDER BY name')
      .pluck()
      .all(seq) as string[];
  }

  /**
   * Replaces the ACL and access list of a document. The document row is not changed, so the documents epoch (which
   * the search caches follow) is bumped here: a viewer's kept readable set (search/readable-sets.ts) would otherwise
   * miss a document shared with them since.
   */
  setAccess(seq: number, acl: readonly AclEntry[], accessList: readonly string[]): void {
    this.#sql.get('DELETE FROM document_access WHERE doc_seq = ?').run(seq);
    this.#insertAccess(seq, acl, accessList);
    this.#sql.get('UPDATE documents_epoch SET n = n + 1').run();
  }

  #insertAccess(seq: number, acl: readonly AclEntry[], accessList: readonly string[]): void {
    // One row per (principal, role), the last entry winning, deduplicated here: a plain INSERT costs a tenth of
    // INSERT OR REPLACE on this table (measured in bench:ingest).
    const rows = new Map<string, [principal: string, role: string, expiresAt: number | null]>();
    for (const entry of acl)
      rows.set(`${entry.role} ${entry.user_id}`, [entry.user_id, entry.role, entry.expires_at ?? null]);
    for (const principal of accessList) rows.set(`list ${principal}`, [principal, 'list', null]);
    const insert = this.#sql.get(
      'INSERT INTO document_access (doc_seq, principal, role, expires_at) VALUES (?, ?, ?, ?)',
    );
    for (const [principal, role, expiresAt] of rows.values()) insert.run(seq, principal, role, expiresAt);
  }

  updateFields(seq: number, fields: DocumentFields, now: number): void {
    this.#sql
      .get('UPDATE documents SET fields = ?, updated_at = ? WHERE seq = ?')
      .run(JSON.stringify(fields), now, seq);
  }

  /**
   * Sets a document's visibility. A live document's chunks move between the text tables with it: BM25 counts the
   * chunks of public documents only (see TextIndex).
   */
  setVisibility(row: DocumentRow, visibility: string, now: number): void {
    this.#sql.get('UPDATE documents SET visibility = ?, updated_at = ? WHERE seq = ?').run(visibility, now, row.seq);
    if (row.superseded || row.deleted_at !== null) return; // not indexed
    const chunks = this.#sql.get('SELECT seq FROM chunks WHERE doc_seq = ?').pluck().all(row.seq) as number[];
    this.#text.setPublic(row.tenant_id, chunks, visibility === 'public');
  }

  /** Hides a document from every read and search; returns its chunk keys, which leave the vector index. */
  softDelete(row: DocumentRow, now: number): number[] {
    this.#sql.get('UPDATE documents SET deleted_at = ? WHERE seq = ?').run(now, row.seq);
    // Its earlier versions go with it: a document written later under the same id must not revive them.
    for (const seq of this.#archivedVersions(row)) {
      this.#sql.get('UPDATE documents SET deleted_at = ? WHERE seq = ? AND deleted_at IS NULL').run(now, seq);
    }
    return this.#unindex(row.seq);
  }

  /** Seqs of the archived versions (`id@v1`, `id@v2`…) of a document. */
  #archivedVersions(row: DocumentRow): number[] {
    const prefix = `${row.id}@v`;
    return this.#sql
      .get(
        `SELECT seq FROM documents WHERE tenant_id = @tenant AND superseded = 1 AND id LIKE @like ESCAPE '\\'
           AND substr(id, 1, length(@prefix)) = @prefix AND substr(id, length(@prefix) + 1) <> ''
           AND substr(id, length(@prefix) + 1) NOT GLOB '*[^0-9]*'`,
      )
      .pluck()
      .all({
        tenant: row.tenant_id,
        like: `${prefix.replace(/[\\%_]/g, '\\$&')}%`,
        prefix,
      }) as number[];
  }

  /** The stored-file keys of a document and of its archived versions (what a purge must delete). */
  filePaths(row: DocumentRow): string[] {
    return [row.seq, ...this.#archivedVersions(row)].flatMap((seq) => {
      const path = this.#sql
        .get("SELECT json_extract(fields, '$.file_path') FROM documents WHERE seq = ?")
        .pluck()
        .get(seq) as unknown;
      return typeof path === 'string' ? [path] : [];
    });
  }

  /** The stored-file key recorded with version `version` of a document, current or archived (`id@v<version>`). */
  filePathOf(tenantId: string, id: string, version: number): string | undefined {
    const path = this.#sql
      .get(
        "SELECT json_extract(fields, '$.file_path') FROM documents WHERE tenant_id = ? AND id IN (?, ?) AND version = ?",
      )
      .pluck()
      .get(tenantId, id, `${id}@v${version}`, version) as unknown;
    return typeof path === 'string' ? path : undefined;
  }

  /** Removes a document from the store and every index (archived versions too); returns the chunk keys. */
  purge(row: DocumentRow): number[] {
    const versions = [row.seq, ...this.#archivedVersions(row)];
    const keys: number[] = [];
    for (const seq of versions) {
      keys.push(...this.#unindex(seq));
      this.#sql.get('DELETE FROM documents WHERE seq = ?').run(seq);
    }
    return keys;
  }

  /** Every version of every document of a collection (current, archived and soft-deleted). */
  collectionRows(tenantId: string, table: string): DocumentRow[] {
    return this.#sql
      .get('SELECT * FROM documents WHERE tenant_id = ? AND primary_table = ?')
      .all(tenantId, table) as DocumentRow[];
  }

  /** Removes one document version from the store and every index; returns its chunk keys. */
  purgeVersion(seq: number): number[] {
    const keys = this.#unindex(seq);
    this.#sql.get('DELETE FROM documents WHERE seq = ?').run(seq);
    return keys;
  }

  /** Takes a document's chunks out of the text, geo, field and vector indexes (its rows stay); returns the chunk keys. */
  #unindex(seq: number): number[] {
    const { tenant_id: tenantId } = this.#sql.get('SELECT tenant_id FROM documents WHERE seq = ?').get(seq) as {
      tenant_id: string;
    };
    this.#text.delete(tenantId, this.#sql.get('SELECT seq FROM chunks WHERE doc_seq = ?').pluck().all(seq) as number[]);
    this.#sql.get('DELETE FROM geo_rtree WHERE doc_seq = ?').run(seq);
    // Field indexes hold current live versions only (issue #39).
    this.#sql.get('DELETE FROM field_postings WHERE doc_seq = ?').run(seq);
    this.#fieldLists.unposted(seq);
    this.#sparse.unpost(tenantId, seq);
    return this.#sql
      .get('SELECT seq FROM chunks WHERE doc_seq = ? AND vector IS NOT NULL')
      .pluck()
      .all(seq) as number[];
  }
}
