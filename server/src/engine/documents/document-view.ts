import type { ChunkRow, DocumentFields, DocumentRow, AccessEntry } from './types.js';

export interface ViewFlags {
  readonly include_embeddings: boolean;
  readonly include_chunks: boolean;
  readonly include_metadata: boolean;
  readonly include_acl: boolean;
  readonly include_stats: boolean;
}

export const chunkId = (docId: string, index: number) => `${docId}#${index}`;

const vectorOf = (chunk: ChunkRow) =>
  chunk.vector
    ? Array.from(new Float32Array(chunk.vector.buffer, chunk.vector.byteOffset, chunk.vector.byteLength / 4))
    : null;

export interface ViewContext {
  readonly row: DocumentRow;
  readonly fields: DocumentFields;
  readonly access: readonly AccessEntry[];
  readonly chunks: readonly ChunkRow[];
  readonly childIds: readonly string[];
  readonly engagementEvents: number;
  readonly showAcl: boolean;
  /** The client's vectors by name (read only with include_embeddings). */
  readonly vectors?: Readonly<Record<string, number[]>>;
  /** The names of the vectors the client gave (a model's name among them: the model was skipped). */
  readonly givenNames?: readonly string[];
  /** The collection's name of each model's vector, by model. */
  readonly modelVectorNames?: Readonly<Record<string, string>>;
}

/**
 * Every stored vector of a document under its collection vector name (issue #37): the client's as given, and the
 * chunk vectors a model filled under the name of the collection's vector for that model (the model's name when the
 * collection has none), one per chunk.
 */
function namedVectors(ctx: ViewContext, docId: string): Record<string, unknown> {
  const names = ctx.modelVectorNames ?? {};
  const modelOfName = new Map(Object.entries(names).map(([model, name]) => [name, model]));
  const named: Record<string, unknown> = {};
  for (const [name, vector] of Object.entries(ctx.vectors ?? {})) {
    const model = modelOfName.get(name);
    named[name] = { source: 'given', ...(model !== undefined && { model }), vector };
  }
  for (const c of ctx.chunks) {
    if (c.vector === null || c.model === null) continue;
    const name = names[c.model] ?? c.model;
    if (ctx.givenNames?.includes(name)) continue; // its first chunk carries the given vector
    const entry = (named[name] ??= { source: 'model', model: c.model, chunks: [] }) as { chunks: unknown[] };
    entry.chunks.push({ chunk_id: chunkId(docId, c.chunk_index), vector: vectorOf(c) });
  }
  return named;
}

/** A stored document as the API returns it (api-spec §3: the REST fields plus what a fetched document adds). */
export function documentView(ctx: ViewContext, flags: ViewFlags): Record<string, unknown> {
  const { row, fields } = ctx;
  const children = [...new Set([...(fields.child_doc_ids ?? []), ...ctx.childIds])];
  // A document that gave the vector its model fills was not processed by the model.
  const modelGiven =
    row.model !== null && (ctx.givenNames ?? []).includes(ctx.modelVectorNames?.[row.model] ?? row.model);
  const embedded = !modelGiven && ctx.chunks.some((c) => c.vector !== null);
  const view: Record<string, unknown> = {
    id: row.id,
    tenant_id: row.tenant_id,
    title: row.title,
    content: row.content,
    ...(flags.include_metadata && fields.metadata && { metadata: fields.metadata }),
    ...(row.lat !== null && row.lon !== null && { location: [row.lat, row.lon] }),
    ...pick(fields, [
      'file_url',
      'storage_type',
      'file_type',
      'content_type',
      'tags',
      'categories',
      'external_id',
      'source_url',
    ]),
    created_at: row.created_at,
    updated_at: row.updated_at,
    ...(row.indexed_at !== null && { indexed_at: row.indexed_at }),
    primary_table: row.primary_table,
    visibility: row.visibility,
    ...(row.parent_doc_id !== null && { parent_doc_id: row.parent_doc_id }),
    ...(children.length > 0 && { child_doc_ids: children }),
    lang_code: fields.lang_code,
    ...(fields.access_list && { access_list: fields.access_list }),
    ...(ctx.showAcl &&
      flags.include_acl && {
        acl: ctx.access
          .filter((a) => a.role !== 'list')
          .map((a) => ({
            user_id: a.principal,
            role: a.role,
            ...(a.expires_at !== null && { expires_at: a.expires_at }),
          })),
      }),
    ...pick(fields, ['vector_meta', 'engagement', 'embedding_options', 'chunk_size', 'chunk_overlap', 'edges']),
    is_chunk: false,
    is_parent: children.length > 0 || ctx.chunks.length > 1,
    is_child: row.parent_doc_id !== null,
    relation_type:
      row.parent_doc_id !== null ? 'child' : children.length > 0 || ctx.chunks.length > 1 ? 'parent' : 'document',
    hierarchy_path: row.parent_doc_id !== null ? `${row.parent_doc_id}/${row.id}` : row.id,
    ...pick(fields, ['translations', 'previous_doc_id', 'feedback', 'label']),
    ...(embedded && row.model && { processed_by: [row.model], model_versions: { [row.model]: row.model } }),
    version: row.version,
    needs_refresh: row.indexed_at === null || row.indexed_at < row.updated_at,
    is_dirty: false,
    ...(row.cluster !== null && { cluster: row.cluster }),
  };
  if (flags.include_chunks) {
    view.chunks = ctx.chunks.map((c) => ({
      id: chunkId(row.id, c.chunk_index),
      index: c.chunk_index,
      content: c.content,
      start: c.start_offset,
      end: c.end_offset,
      ...(c.model && { model: c.model }),
    }));
  }
  if (flags.include_embeddings) {
    view.embeddings = ctx.chunks
      .filter((c) => c.vector !== null)
      .map((c) => ({ chunk_id: chunkId(row.id, c.chunk_index), model: c.model, vector: vectorOf(c) }));
    if (ctx.vectors && Object.keys(ctx.vectors).length > 0) view.vectors = ctx.vectors;
    // Sparse vectors as given (issue #42): kept in the document's fields, which is what their postings derive from.
    if (fields.sparse_vectors && Object.keys(fields.sparse_vectors).length > 0)
      view.sparse_vectors = fields.sparse_vectors;
    const named = namedVectors(ctx, row.id);
    if (Object.keys(named).length > 0) view.named_vectors = named;
  }
  if (flags.include_stats) {
    view.stats = {
      chunk_count: ctx.chunks.length,
      vector_count: ctx.chunks.filter((c) => c.vector !== null).length,
      content_length: row.content.length,
      engagement_events: ctx.engagementEvents,
      version: row.version,
    };
  }
  return view;
}

/** A chunk fetched by its id (`doc#3`): a child document of its parent. */
export function chunkView(
  parent: DocumentRow,
  fields: DocumentFields,
  chunk: ChunkRow,
  flags: ViewFlags,
): Record<string, unknown> {
  return {
    id: chunkId(parent.id, chunk.chunk_index),
    tenant_id: parent.tenant_id,
    title: parent.title,
    content: chunk.content,
    ...(flags.include_metadata && fields.metadata && { metadata: fields.metadata }),
    created_at: parent.created_at,
    updated_at: parent.updated_at,
    primary_table: parent.primary_table,
    visibility: parent.visibility,
    parent_doc_id: parent.id,
    lang_code: fields.lang_code,
    is_chunk: true,
    is_parent: false,
    is_child: true,
    relation_type: 'chunk',
    hierarchy_path: `${parent.id}/${chunkId(parent.id, chunk.chunk_index)}`,
    version: parent.version,
    needs_refresh: false,
    is_dirty: false,
    ...(flags.include_embeddings &&
      chunk.vector && {
        embeddings: [{ chunk_id: chunkId(parent.id, chunk.chunk_index), model: chunk.model, vector: vectorOf(chunk) }],
      }),
  };
}

function pick(fields: DocumentFields, names: readonly (keyof DocumentFields)[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const name of names) if (fields[name] !== undefined) out[name] = fields[name];
  return out;
}
