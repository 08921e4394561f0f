import { createError, GoDBError, isGoDBError } from '@godb/contract';
import type { Collections } from '../../collections/collections.js';
import type { Embedder } from '../../embeddings/embedder.js';
import { clientSpaceKey } from '../../collections/vector-space.js';
import type { SearchCore } from '../search-core.js';
import {
  parseVector,
  queryVector,
  similarity,
  type ClientVectorSpace,
  type SimilarityMethod,
} from '../vector-query.js';
import { vectorTarget } from '../vector-target.js';

/** What a dense stage, a rescore or MMR compares by: a collection's own vector, or a model's chunk vectors. */
export type VectorTarget =
  | { readonly kind: 'own'; readonly space: ClientVectorSpace }
  | { readonly kind: 'model'; readonly model?: string | undefined };

/** The catalogue error `error` about `field` (a stage's path, not the top level's); any other error as it is. */
export function at(error: unknown, field: string): unknown {
  if (!isGoDBError(error) || error.field === undefined) return error;
  return new GoDBError(error.code, error.message, field, error.details ? { ...error.details } : undefined);
}

/**
 * The vector a stage names: one of the collection's vectors (refused, naming `path` and the collection's vectors,
 * when it declares no such name), or without a name what vector search would compare with (vector-target.ts).
 */
export function resolveTarget(
  collections: Collections,
  tenantId: string,
  table: string | undefined,
  input: { vector_name?: string | undefined; vector?: unknown; query?: string | undefined },
  path: string,
): VectorTarget {
  if (input.vector_name === undefined) {
    const target = vectorTarget(collections, tenantId, {
      primary_table: table,
      vector: input.vector,
      query: input.query,
    });
    return target && 'collection' in target ? { kind: 'own', space: target } : { kind: 'model', model: target?.model };
  }
  if (table === undefined)
    throw createError(
      'VALIDATION_FAILED',
      { detail: `${path}.vector_name needs body.primary_table: the collection whose vector it names.` },
      { field: 'body.primary_table' },
    );
  const collection = collections.require(tenantId, table, 'body.primary_table');
  const settings = collection.vectors[input.vector_name];
  if (!settings) {
    const names = Object.keys(collection.vectors);
    throw createError(
      'VALIDATION_FAILED',
      {
        detail: `${path}.vector_name: collection ${collection.name} declares no vector "${input.vector_name}"; expected one of: ${names.length > 0 ? names.join(', ') : '(none: the collection declares no vectors)'}.`,
      },
      { field: `${path}.vector_name` },
    );
  }
  return settings.model !== undefined
    ? { kind: 'model', model: settings.model }
    : { kind: 'own', space: { collection: collection.name, name: input.vector_name, settings } };
}

/** How a target compares two vectors (model vectors are unit length: cosine is their dot product). */
export const methodOf = (target: VectorTarget): SimilarityMethod =>
  target.kind === 'own' ? target.space.settings.distance : 'cosine';

const unitLength = (v: Float32Array) => {
  const norm = Math.hypot(...v);
  return norm > 0 ? v.map((x) => x / norm) : v;
};

/** The query vector of a rescore: the given vector (own vectors) or the query embedded (a model's). */
export async function queryVectorFor(
  embedder: Embedder,
  target: VectorTarget,
  input: { query?: string | undefined; vector?: unknown },
  path: string,
  signal?: AbortSignal,
): Promise<Float32Array> {
  try {
    if (target.kind === 'own') {
      const { space } = target;
      if (input.vector === undefined)
        throw createError(
          'INVALID_VECTOR_FORMAT',
          {
            reason: `vector "${space.name}" of collection ${space.collection} holds your own vectors: give ${path}.vector (${space.settings.dimensions} numbers)`,
          },
          { field: `${path}.vector` },
        );
      const given = parseVector(input.vector, space.settings.dimensions, `vector "${space.name}"`);
      return space.settings.distance === 'cosine' ? unitLength(given) : given;
    }
    const { vector } = await queryVector(embedder, {
      text: input.query,
      vector: input.vector,
      model: target.model,
      signal,
    });
    return unitLength(vector);
  } catch (error) {
    throw at(error, isGoDBError(error) && error.code === 'QUERY_REQUIRED' ? `${path}.query` : `${path}.vector`);
  }
}

const floats = (blob: Buffer) => new Float32Array(new Uint8Array(blob).buffer);

/**
 * The stored vectors of documents (by seq) on a target, as compared (unit length for cosine), or as stored (`raw`:
 * as the client gave them). A model's vectors are one per chunk. The documents are hits already loaded under the
 * caller's access rule. Read from the index's float32 copies in memory, where each document's vectors are linked; from
 * the store when the copies are not held (or for `raw`).
 */
export function documentVectors(
  core: SearchCore,
  tenantId: string,
  target: VectorTarget,
  docs: readonly { readonly seq: number; readonly id: string }[],
  defaultModel: string,
  raw = false,
): Map<number, Float32Array[]> {
  const out = new Map<number, Float32Array[]>();
  const add = (seq: number, v: Float32Array) => {
    const list = out.get(seq);
    if (list) list.push(v);
    else out.set(seq, [v]);
  };
  if (docs.length === 0) return out;
  const cosine = !raw && (target.kind === 'model' || target.space.settings.distance === 'cosine');
  const space =
    target.kind === 'own' ? clientSpaceKey(target.space.collection, target.space.name) : (target.model ?? defaultModel);
  const copies = raw ? null : core.vectors.exactVectors(tenantId, space);
  if (copies) {
    // Each document's keys are linked in the copies (no read of the store); rows are copies already.
    const dims = copies.dims;
    const sink = { keys: [] as number[], data: new Float32Array(docs.length * dims) };
    for (const d of docs) {
      const from = sink.keys.length;
      if (!copies.gather(d.seq, sink)) continue;
      for (let row = from; row < sink.keys.length; row += 1) {
        const vector = sink.data.slice(row * dims, (row + 1) * dims);
        add(d.seq, cosine ? unitLength(vector) : vector);
      }
    }
    return out;
  }
  // Only here are ids read (a lazy candidate's id costs a row read).
  const seqOf = new Map(docs.map((d) => [d.id, d.seq]));
  const rows =
    target.kind === 'own'
      ? core.rows.liveClientVectorsOf(tenantId, target.space, [...seqOf.keys()])
      : core.rows.liveChunkVectorsOf(tenantId, [...seqOf.keys()]).filter((row) => row.model === space);
  for (const row of rows) {
    const seq = seqOf.get(row.id);
    if (seq !== undefined) add(seq, cosine ? unitLength(floats(row.vector)) : floats(row.vector));
  }
  return out;
}

/** A document's similarity to a query: its best vector's (a model's: its best chunk's, as vector search scores). */
export function bestSimilarity(
  method: SimilarityMethod,
  query: Float32Array,
  vectors: readonly Float32Array[],
): number {
  let best = -Infinity;
  for (const v of vectors) best = Math.max(best, similarity(method, query, v));
  return best;
}

/** One vector per document for MMR: its own, or its chunks' mean made unit length. */
export function documentVector(vectors: readonly Float32Array[] | undefined): Float32Array | undefined {
  if (!vectors || vectors.length === 0) return undefined;
  if (vectors.length === 1) return vectors[0];
  const mean = new Float32Array(vectors[0]!.length);
  for (const v of vectors) for (let i = 0; i < v.length; i += 1) mean[i]! += v[i]!;
  return unitLength(mean);
}
