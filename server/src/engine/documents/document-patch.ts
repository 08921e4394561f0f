import { createError, type AclEntry } from '@godb/contract';
import { defaultVectorName, type Collections } from '../collections/collections.js';
import { currentIdOf, type DocumentReads } from './document-reads.js';
import { checkDocumentSparse, type SparseVectorValue } from '../sparse/sparse-input.js';
import type { DocumentPreparation } from './document-preparation.js';
import type { DocumentStore } from './document-store.js';
import { withGivenModelVector } from './given-model-vector.js';
import { prepareDocument } from './prepare.js';
import { carriedMultiVectors } from '../multi-vectors/given-multi-vectors.js';
import type { DocumentFields, PreparedDocument, Viewer } from './types.js';

/** The fields a partial update may change. */
export interface DocumentPatch {
  readonly title?: string | undefined;
  readonly metadata?: Record<string, unknown> | undefined;
  readonly tags?: string[] | undefined;
  readonly categories?: string[] | undefined;
  readonly location?: readonly [number, number] | undefined;
  readonly lang_code?: string | undefined;
  readonly external_id?: string | undefined;
  readonly source_url?: string | undefined;
  readonly vector?: number[] | undefined;
  readonly vectors?: Record<string, number[]> | undefined;
  readonly sparse_vectors?: Record<string, SparseVectorValue> | undefined;
}

/** A float32 copy of a stored vector (the row's buffer is reused by the driver). */
const copyVector = (blob: Buffer) =>
  new Float32Array(blob.buffer.slice(blob.byteOffset, blob.byteOffset + blob.byteLength));

export interface DocumentPatchesDeps {
  readonly store: DocumentStore;
  readonly reads: DocumentReads;
  readonly collections: Collections;
  readonly preparation: DocumentPreparation;
}

/**
 * A partial update as a new version, prepared from the stored one: the given fields changed and everything else
 * as it was. Chunks keep their model vectors unless the title changed (it is part of every chunk's embedded text);
 * the vectors not named in the update are kept; the owner and ACL stay the document's.
 */
export class DocumentPatches {
  readonly #deps: DocumentPatchesDeps;

  constructor(deps: DocumentPatchesDeps) {
    this.#deps = deps;
  }

  /** The new version, embedded, and the version it was prepared from (the write is refused if another came first). */
  async prepare(
    viewer: Viewer,
    id: string,
    patch: DocumentPatch,
    signal?: AbortSignal,
  ): Promise<{ prepared: PreparedDocument; fromVersion: number }> {
    const { store, reads, collections, preparation } = this.#deps;
    const row = reads.readable(viewer, id);
    if (row.superseded) {
      throw createError('VALIDATION_FAILED', { detail: `${id} is an earlier version: update ${currentIdOf(id)}` });
    }
    const access = store.access(row.seq);
    const fields = JSON.parse(row.fields) as DocumentFields;
    const title = patch.title ?? row.title;
    const reembed = row.model !== null && title !== row.title;
    const stored = store.chunks(row.seq);
    const collection = collections.get(viewer.tenantId, row.primary_table);
    const storedVectors = store.vectors(row.seq);
    const isMulti = (name: string) => collection?.vectors[name]?.multi !== undefined;
    const given = new Map(
      storedVectors
        .filter((v) => !isMulti(v.name))
        .map((v) => [v.name, { name: v.name, vector: copyVector(v.vector), field: `body.vectors.${v.name}` }]),
    );
    // A multi-vector's rows are kept whole, in their stored order (seq order: as given).
    const multiVectors = carriedMultiVectors(
      storedVectors.filter((v) => isMulti(v.name)),
      copyVector,
    );
    for (const v of prepareDocument(
      { ...(patch.vector && { vector: patch.vector }), ...(patch.vectors && { vectors: patch.vectors }) },
      viewer.userId,
      'body',
    ).vectors) {
      // The unnamed vector replaces the collection's default one, as an add reads it: a default vector a model
      // fills is not taken by the unnamed vector (the vector named `default` is).
      const defaultVector = collection?.default_vector;
      const name =
        v.name !== ''
          ? v.name
          : defaultVector !== undefined && collection?.vectors[defaultVector]?.model === undefined
            ? defaultVector
            : defaultVector === undefined
              ? ''
              : defaultVectorName;
      given.delete(name);
      given.set(name, { ...v, name });
    }
    const location =
      patch.location ?? (row.lat !== null && row.lon !== null ? ([row.lat, row.lon] as const) : undefined);
    const unembedded: PreparedDocument = {
      id: row.id,
      title,
      content: row.content,
      visibility: row.visibility,
      primaryTable: row.primary_table,
      parentDocId: row.parent_doc_id ?? undefined,
      location,
      createdAt: row.created_at,
      updatedAt: undefined,
      indexedAt: undefined,
      fields: {
        ...fields,
        ...(patch.metadata !== undefined && { metadata: patch.metadata }),
        ...(patch.tags !== undefined && { tags: patch.tags }),
        ...(patch.categories !== undefined && { categories: patch.categories }),
        ...(patch.lang_code !== undefined && { lang_code: patch.lang_code }),
        ...(patch.external_id !== undefined && { external_id: patch.external_id }),
        ...(patch.source_url !== undefined && { source_url: patch.source_url }),
        // Sparse vectors you do not name are kept, as dense ones are.
        ...(patch.sparse_vectors !== undefined && {
          sparse_vectors: {
            ...fields.sparse_vectors,
            ...checkDocumentSparse(patch.sparse_vectors, 'body.sparse_vectors'),
          },
        }),
      },
      acl: access
        .filter((a) => a.role !== 'list')
        .map((a) => ({
          user_id: a.principal,
          role: a.role as AclEntry['role'],
          ...(a.expires_at !== null && { expires_at: a.expires_at }),
        })),
      chunks: stored.map((c) => ({
        content: c.content,
        start: c.start_offset,
        end: c.end_offset,
        ...(!reembed && c.vector !== null && { vector: copyVector(c.vector) }),
      })),
      model: row.model,
      fileContent: undefined,
      ownerId: row.owner_id,
      vectors: [...given.values()],
      ...(multiVectors.length > 0 && { multiVectors }),
    };
    // A vector given for the model's name (now or with an earlier version) stays the document's: not re-embedded.
    const prepared = withGivenModelVector(unembedded, collection);
    if (reembed) await preparation.embed([prepared], signal);
    signal?.throwIfAborted();
    return { prepared, fromVersion: row.version };
  }
}
