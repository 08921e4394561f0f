import { createError } from '@godb/contract';
import { unixSeconds, type Clock } from '../clock.js';
import type { Collections } from '../collections/collections.js';
import type { DocumentFiles } from '../files/document-files.js';
import type { StoredObject } from '../files/object-store.js';
import { accessStamp, canRead, isOwner, type DeletionFacts, type DocumentAccessFacts } from '../access/access.js';
import type { DocumentStore } from './document-store.js';
import { chunkView, documentView, type ViewFlags } from './document-view.js';
import type { EngagementStore } from './engagement-store.js';
import type { DocumentFields, DocumentRow, Viewer } from './types.js';

export interface DocumentReadsDeps {
  readonly store: DocumentStore;
  readonly engagement: EngagementStore;
  readonly clock: Clock;
  readonly files: DocumentFiles | null;
  readonly collections: Collections;
}

/** The id of the current version of an archived version's id (`report@v2` → `report`). */
export const currentIdOf = (archivedId: string) => archivedId.replace(/@v\d+$/, '');

/**
 * Reads of documents through the access rule: a document the caller may not see is not found. Also the facts the
 * service decides writes on (who may overwrite, delete, change access), each with the stamp a write carries.
 */
export class DocumentReads {
  readonly #deps: DocumentReadsDeps;

  constructor(deps: DocumentReadsDeps) {
    this.#deps = deps;
  }

  now(): number {
    return unixSeconds(this.#deps.clock);
  }

  /**
   * A live document the viewer may read; 404 otherwise (whether it is missing, deleted or hidden). An older
   * version (`id@v2`) also follows its document's current access: making a document private, revoking a grant or
   * deleting it hides every earlier version too.
   */
  readable(viewer: Viewer, id: string, field?: string): DocumentRow {
    const row = this.#deps.store.row(viewer.tenantId, id);
    if (!row || !this.mayRead(viewer, row)) {
      throw createError('NOT_FOUND', { resource: 'Document', id }, field ? { field } : {});
    }
    return row;
  }

  mayRead(viewer: Viewer, row: DocumentRow): boolean {
    const { store } = this.#deps;
    const now = this.now();
    const readable = (r: DocumentRow) =>
      r.deleted_at === null && canRead(r.visibility, store.access(r.seq), viewer, now);
    if (!readable(row)) return false;
    if (!row.superseded) return true;
    // An older version needs its own access and its document's current access: losing access to a document, or
    // its deletion, hides every version, and a new document written later under the same id opens none of them.
    const current = store.row(viewer.tenantId, currentIdOf(row.id));
    return current !== undefined && !current.superseded && readable(current);
  }

  /** The row when it is a soft-deleted document (not an older version) that the viewer owns. */
  deletedOwnedBy(viewer: Viewer, row: DocumentRow | undefined): DocumentRow | undefined {
    return row &&
      row.deleted_at !== null &&
      !row.superseded &&
      isOwner(this.#deps.store.access(row.seq), viewer, this.now())
      ? row
      : undefined;
  }

  /** The live children of a document that the viewer may read (the others are not shown, not even their ids). */
  #readableChildren(viewer: Viewer, id: string): DocumentRow[] {
    const { store } = this.#deps;
    return store.childIds(viewer.tenantId, id).flatMap((childId) => {
      const child = store.row(viewer.tenantId, childId);
      return child && this.mayRead(viewer, child) ? [child] : [];
    });
  }

  /**
   * The row and fields as `viewer` may see them: links to documents they cannot read (the parent, declared
   * children, edges) are left out, as the graph leaves such edges out, so no id of an unreadable document shows.
   */
  #asSeenBy(viewer: Viewer, row: DocumentRow): { row: DocumentRow; fields: DocumentFields } {
    const fields = JSON.parse(row.fields) as DocumentFields;
    const visible = (id: string) => {
      const linked = this.#deps.store.row(viewer.tenantId, id);
      return linked !== undefined && this.mayRead(viewer, linked);
    };
    return {
      row: row.parent_doc_id !== null && !visible(row.parent_doc_id) ? { ...row, parent_doc_id: null } : row,
      fields: {
        ...fields,
        ...(fields.child_doc_ids && { child_doc_ids: fields.child_doc_ids.filter(visible) }),
        ...(fields.edges && { edges: fields.edges.filter((e) => visible(e.target_id)) }),
      },
    };
  }

  /** The document (or chunk, `doc#3`) as the API shows it. */
  get(viewer: Viewer, id: string, flags: ViewFlags): Record<string, unknown> {
    const { store } = this.#deps;
    const chunkMatch = /^(.+)#(\d+)$/.exec(id);
    if (chunkMatch && !store.row(viewer.tenantId, id)) {
      const parent = this.readable(viewer, chunkMatch[1]!);
      const chunk = store.chunks(parent.seq).find((c) => c.chunk_index === Number(chunkMatch[2]));
      if (!chunk) throw createError('NOT_FOUND', { resource: 'Document', id });
      const seen = this.#asSeenBy(viewer, parent);
      return chunkView(seen.row, seen.fields, chunk, flags);
    }
    const { row, fields } = this.#asSeenBy(viewer, this.readable(viewer, id));
    const access = store.access(row.seq);
    const given = flags.include_embeddings ? store.vectors(row.seq) : [];
    const collection = this.#deps.collections.get(viewer.tenantId, row.primary_table);
    return documentView(
      {
        row,
        fields,
        access,
        chunks: store.chunks(row.seq),
        childIds: this.#readableChildren(viewer, row.id).map((c) => c.id),
        engagementEvents: flags.include_stats ? this.#deps.engagement.count(viewer.tenantId, row.id) : 0,
        showAcl: isOwner(access, viewer, this.now()),
        givenNames: flags.include_embeddings ? given.map((v) => v.name) : store.vectorNames(row.seq),
        ...(flags.include_embeddings && {
          vectors: Object.fromEntries(
            given.map((v) => [
              v.name,
              Array.from(new Float32Array(v.vector.buffer, v.vector.byteOffset, v.vector.byteLength / 4)),
            ]),
          ),
        }),
        modelVectorNames: Object.fromEntries(
          Object.entries(collection?.vectors ?? {}).flatMap(([name, v]) =>
            v.model !== undefined ? [[v.model, name] as const] : [],
          ),
        ),
      },
      flags,
    );
  }

  /**
   * The file uploaded with a document (or with an earlier version, `id@v2`), if the viewer may read the document.
   * NOT_FOUND when there is none.
   */
  async file(
    viewer: Viewer,
    id: string,
  ): Promise<StoredObject & { readonly name: string; readonly contentType: string | undefined }> {
    const row = this.readable(viewer, id);
    const fields = JSON.parse(row.fields) as DocumentFields;
    const stored = fields.file_path !== undefined ? await this.#deps.files?.open(fields.file_path) : undefined;
    if (!stored) throw createError('NOT_FOUND', { resource: 'File of document', id });
    return { ...stored, name: row.id, contentType: fields.content_type };
  }

  /**
   * The facts a decision about a document is taken on (service/documents/document-policy.ts): the document as the
   * viewer may read it (NOT_FOUND otherwise), its access entries, the time they were read, and their stamp, which a
   * change carries so that it is applied only to the access it was decided on (see AccessChanges.setVisibility).
   */
  accessFacts(viewer: Viewer, id: string): DocumentAccessFacts {
    const row = this.readable(viewer, id);
    const access = this.#deps.store.access(row.seq);
    return { id: row.id, superseded: row.superseded !== 0, access, now: this.now(), stamp: accessStamp(access) };
  }

  /**
   * The facts a write over existing documents is decided on (service/documents/document-policy.ts `mayOverwrite`):
   * for each of `ids` that names a stored document — live or soft-deleted, readable or not — its access entries and
   * their stamp, which the write carries as `decidedOn` so that it runs only on the access it was decided on.
   */
  overwriteFacts(viewer: Viewer, ids: readonly string[]): Map<string, DocumentAccessFacts> {
    const { store } = this.#deps;
    const now = this.now();
    const facts = new Map<string, DocumentAccessFacts>();
    for (const id of ids) {
      const row = store.row(viewer.tenantId, id);
      if (!row) continue;
      const access = store.access(row.seq);
      facts.set(id, { id, superseded: row.superseded !== 0, access, now, stamp: accessStamp(access) });
    }
    return facts;
  }

  /**
   * The facts a delete is decided on (document-policy.ts `mayDelete`): the documents it would delete — the document
   * and, with `recursive`, its descendants — each with its access entries and their stamp. NOT_FOUND for a document
   * the viewer cannot read, and FORBIDDEN when a descendant is one (the read rule: it is neither deleted nor named).
   */
  deletion(viewer: Viewer, id: string, options: { recursive: boolean; permanent: boolean }): DeletionFacts {
    const now = this.now();
    const targets = this.deleteTargets(viewer, id, options).map((row) => {
      const access = this.#deps.store.access(row.seq);
      return { id: row.id, access, stamp: accessStamp(access) };
    });
    return { targets, now };
  }

  /** The documents a delete takes: the document and, with `recursive`, its descendants (see deletion). */
  deleteTargets(viewer: Viewer, id: string, options: { recursive: boolean; permanent: boolean }): DocumentRow[] {
    const { store } = this.#deps;
    // A soft-deleted document can still be purged by its owner (and only purged).
    const root =
      (options.permanent && this.deletedOwnedBy(viewer, store.row(viewer.tenantId, id))) || this.readable(viewer, id);
    const targets = [root];
    // Each document once, even if the data holds a parent cycle (made before cycles were refused).
    const seen = new Set([root.seq]);
    if (options.recursive) {
      for (let i = 0; i < targets.length; i += 1) {
        const id = targets[i]!.id;
        for (const childId of store.childIds(viewer.tenantId, id, { deleted: options.permanent })) {
          const row = store.row(viewer.tenantId, childId);
          // Live children the caller may read; when purging, also soft-deleted ones it owns.
          const child =
            row && this.mayRead(viewer, row) ? row : options.permanent ? this.deletedOwnedBy(viewer, row) : undefined;
          // A child the caller cannot read is neither deleted nor named.
          if (!child) {
            throw createError('FORBIDDEN', {
              reason: `deleting ${id} recursively needs the owner role on every child document, and you cannot read some of them`,
            });
          }
          if (seen.has(child.seq)) continue;
          seen.add(child.seq);
          targets.push(child);
        }
      }
    }
    return targets;
  }

  /**
   * The facts a delete by filter is decided on, one batch of matched ids at a time (document-policy.ts
   * `deletable`): the live current documents among `ids` that the viewer may read, each with its access and stamp;
   * ids it cannot read are left out (callers pass ids they found readable).
   */
  batchDeletion(viewer: Viewer, ids: readonly string[]): DeletionFacts {
    const { store } = this.#deps;
    const now = this.now();
    const targets = ids.flatMap((id) => {
      const row = store.row(viewer.tenantId, id);
      if (!row || row.superseded || !this.mayRead(viewer, row)) return [];
      const access = store.access(row.seq);
      return [{ id: row.id, access, stamp: accessStamp(access) }];
    });
    return { targets, now };
  }
}
