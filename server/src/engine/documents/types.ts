import type { SparseVectorValue } from '../sparse/sparse-input.js';
import type { AclEntry, DocumentInput, Visibility } from '@godb/contract';
import type { GivenMultiVector } from '../multi-vectors/given-multi-vectors.js';

// Who reads and what grants access belong to the access rule; documents name them too.
export type { AccessEntry, Viewer } from '../access/viewer.js';

/** Fields kept as JSON beside the indexed columns of a document row. */
export interface DocumentFields {
  metadata?: Record<string, unknown>;
  tags?: string[];
  categories?: string[];
  file_url?: string;
  file_path?: string;
  storage_type?: string;
  file_type?: string;
  content_type?: string;
  external_id?: string;
  source_url?: string;
  lang_code: string;
  /** Sparse vectors by declared name (issue #42); their postings are in sparse_postings. */
  sparse_vectors?: Record<string, SparseVectorValue>;
  access_list?: string[];
  vector_meta?: Record<string, unknown>;
  engagement?: Record<string, unknown>;
  embedding_options?: DocumentInput['embedding_options'];
  child_doc_ids?: string[];
  chunk_size: number;
  chunk_overlap: number;
  previous_doc_id?: string;
  feedback?: unknown;
  label?: string;
  translations?: Record<string, string>;
  processed_by?: string[];
  model_versions?: Record<string, string>;
  edges?: DocumentInput['edges'];
}

export interface DocumentRow {
  readonly seq: number;
  readonly tenant_id: string;
  readonly id: string;
  readonly owner_id: string;
  readonly version: number;
  readonly superseded: number;
  readonly deleted_at: number | null;
  readonly visibility: Visibility;
  readonly primary_table: string;
  readonly parent_doc_id: string | null;
  readonly title: string;
  readonly content: string;
  readonly lat: number | null;
  readonly lon: number | null;
  readonly model: string | null;
  readonly cluster: number | null;
  readonly created_at: number;
  readonly updated_at: number;
  readonly indexed_at: number | null;
  readonly fields: string;
}

export interface ChunkRow {
  readonly seq: number;
  readonly doc_seq: number;
  readonly chunk_index: number;
  readonly content: string;
  readonly start_offset: number;
  readonly end_offset: number;
  readonly model: string | null;
  readonly vector: Buffer | null;
}

/** A chunk ready to be written: its text and, when embedded, its vector. */
export interface PreparedChunk {
  readonly content: string;
  readonly start: number;
  readonly end: number;
  vector?: Float32Array;
}

/** A validated document with its chunks, before it is embedded and written. */
export interface PreparedDocument {
  readonly id: string;
  readonly title: string;
  readonly content: string;
  readonly visibility: Visibility;
  readonly primaryTable: string;
  readonly parentDocId: string | undefined;
  readonly location: readonly [number, number] | undefined;
  readonly createdAt: number | undefined;
  readonly updatedAt: number | undefined;
  readonly indexedAt: number | undefined;
  readonly fields: DocumentFields;
  readonly acl: readonly AclEntry[];
  readonly chunks: PreparedChunk[];
  /** The embedding model, or null when embedding is disabled for this document. */
  readonly model: string | null;
  readonly fileContent: string | undefined;
  /** The owner recorded on the row (a partial update keeps the document's); the writer by default. */
  readonly ownerId?: string;
  /**
   * The name of the vector the client gave for a name the collection's model fills (see given-model-vector.ts): the
   * model then embeds nothing, and the first chunk carries that vector.
   */
  readonly givenModelVector?: string;
  /** Vectors the client gave, by name ('' for the unnamed `vector`): checked against the collection when written. */
  readonly vectors: readonly { readonly name: string; readonly vector: Float32Array; readonly field: string }[];
  /** Lists of vectors the client gave for multi-vectors (docs/decisions/0059), checked when written. */
  readonly multiVectors?: readonly GivenMultiVector[];
}
