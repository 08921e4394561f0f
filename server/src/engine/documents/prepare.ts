import { randomUUID } from 'node:crypto';
import { createError, type AclEntry, type DocumentInput } from '@godb/contract';
import { splitIntoWindows } from '../text/text-windows.js';
import { givenMultiVectors } from '../multi-vectors/given-multi-vectors.js';
import { checkDocumentSparse } from '../sparse/sparse-input.js';
import type { PreparedDocument } from './types.js';

export const defaultChunkSize = 1024;
export const defaultChunkOverlap = 200;

/** Ids may not contain the separators GoDB uses for chunk ids (`doc#3`) and archived versions (`doc@v2`). */
const idPattern = /^[^#@\s/]+(?:[^#@]*[^#@\s])?$/;

function fileTypeIsSupported(type: string): boolean {
  return type === 'application/pdf' || type === 'pdf' || type.startsWith('text/') || type === 'text';
}

/**
 * Validates a document beyond its schema and splits its content into chunks (characters, breaking between
 * words; chunk_size 1024 and chunk_overlap 200 by default). `path` prefixes field names in errors (`body[3]`).
 */
export function prepareDocument(
  input: DocumentInput,
  ownerId: string,
  path: string,
  newId: () => string = randomUUID,
): PreparedDocument {
  const field = (name: string) => `${path}.${name}`;
  const id = input.id ?? newId();
  if (!idPattern.test(id)) {
    throw createError(
      'VALIDATION_FAILED',
      {
        detail: `${field('id')} may not contain '#', '@', '/' or surrounding spaces (they are reserved for chunk and version ids)`,
      },
      { field: field('id') },
    );
  }
  for (const typeField of ['file_type', 'content_type'] as const) {
    const type = input[typeField];
    if (
      type !== undefined &&
      (input.file_content !== undefined || typeField === 'file_type') &&
      !fileTypeIsSupported(type)
    ) {
      throw createError('UNSUPPORTED_FILE_TYPE', { type }, { field: field(typeField) });
    }
  }
  const chunkSize = input.chunk_size ?? defaultChunkSize;
  const chunkOverlap = input.chunk_overlap ?? defaultChunkOverlap;
  if (chunkOverlap >= chunkSize) {
    throw createError(
      'VALIDATION_FAILED',
      { detail: `${field('chunk_overlap')} (${chunkOverlap}) must be smaller than chunk_size (${chunkSize})` },
      { field: field('chunk_overlap') },
    );
  }
  const content = input.content ?? input.text_content ?? '';
  const title = input.title ?? '';
  const strategy = input.embedding_options?.preprocessing?.strategy ?? 'token';
  const windows = splitIntoWindows(content, { size: chunkSize, overlap: chunkOverlap, unit: 'chars', strategy });
  const chunks =
    windows.length > 0
      ? windows.map((w) => ({ content: w.text, start: w.start, end: w.end }))
      : title.trim() !== ''
        ? [{ content: '', start: 0, end: 0 }]
        : [];
  const acl: AclEntry[] = [
    { user_id: ownerId, role: 'owner' },
    ...(input.acl ?? []).filter((e) => !(e.user_id === ownerId && e.role === 'owner')),
  ];
  const enabled = input.embedding_options?.enabled !== false;
  const sparse = checkDocumentSparse(input.sparse_vectors, field('sparse_vectors'));
  return {
    id,
    title,
    content,
    visibility: input.visibility ?? 'public',
    primaryTable: input.primary_table ?? 'documents',
    parentDocId: input.parent_doc_id,
    location: input.location,
    createdAt: input.created_at,
    updatedAt: input.updated_at,
    indexedAt: input.indexed_at,
    fields: {
      ...(input.metadata && { metadata: input.metadata }),
      ...(input.tags && { tags: input.tags }),
      ...(input.categories && { categories: input.categories }),
      ...(input.file_url && { file_url: input.file_url }),
      ...(input.storage_type && { storage_type: input.storage_type }),
      ...(input.file_type && { file_type: input.file_type }),
      ...(input.content_type && { content_type: input.content_type }),
      ...(input.external_id && { external_id: input.external_id }),
      ...(input.source_url && { source_url: input.source_url }),
      lang_code: input.lang_code ?? 'en',
      ...(input.access_list && { access_list: input.access_list }),
      ...(input.vector_meta && { vector_meta: input.vector_meta }),
      ...(input.engagement && { engagement: input.engagement }),
      ...(input.embedding_options && { embedding_options: input.embedding_options }),
      ...(input.child_doc_ids && { child_doc_ids: input.child_doc_ids }),
      ...(input.edges && { edges: input.edges }),
      ...(sparse && { sparse_vectors: sparse }),
      chunk_size: chunkSize,
      chunk_overlap: chunkOverlap,
    },
    acl,
    chunks,
    model: enabled ? (input.embedding_options?.model_name ?? input.embedding_options?.model ?? '') : null,
    fileContent: input.file_content,
    vectors: [
      ...(input.vector ? [{ name: '', vector: float32(input.vector, field('vector')), field: field('vector') }] : []),
      ...Object.entries(input.vectors ?? {}).map(([name, v]) => ({
        name,
        vector: float32(v, field(`vectors.${name}`)),
        field: field(`vectors.${name}`),
      })),
    ],
    ...(input.multi_vectors && { multiVectors: givenMultiVectors(input.multi_vectors, field) }),
  };
}

/** A given vector as float32: a number beyond the float32 range (±3.4e38) is refused, not stored as Infinity. */
function float32(values: readonly number[], field: string): Float32Array {
  const vector = Float32Array.from(values);
  const i = vector.findIndex((x) => !Number.isFinite(x));
  if (i >= 0) {
    throw createError(
      'INVALID_VECTOR_FORMAT',
      { reason: `${field}[${i}] is beyond the float32 range (±3.4e38)` },
      { field },
    );
  }
  return vector;
}

/** The text embedded for a chunk: the title gives every chunk its document's context. */
export const embeddingTextOf = (doc: PreparedDocument, chunk: { content: string }) =>
  [doc.title, chunk.content].filter((s) => s.trim() !== '').join('\n');
