import { createError } from '@godb/contract';
import type { VectorSettings } from '@godb/contract';
import type { Embedder } from '../embeddings/embedder.js';
import { dotProduct, squaredDistance } from '../vectors/exact-vectors.js';
import { jsonInput } from './json-input.js';

export type SimilarityMethod = 'cosine' | 'euclidean' | 'dot';

export interface VectorQuery {
  readonly text?: string | undefined;
  readonly vector?: unknown;
  readonly model?: string | undefined;
  readonly method: SimilarityMethod;
  /**
   * Results scoring below are dropped (0 or less keeps everything; hybrid asks −1): for vectorSearch, on the
   * score it answers (the model's relevance when calibrated); inside, on the raw similarity.
   */
  readonly threshold: number;
  /**
   * vectorSearch: answer the model's calibrated relevance as the score (the similarity beside it), as the API does;
   * false keeps the raw similarity as the score (hybrid fuses raw similarities). Default true.
   */
  readonly calibrated?: boolean | undefined;
  /** Inside: the score a raw similarity is answered as (absent: the similarity itself). */
  readonly relevance?: ((similarity: number) => number) | undefined;
  readonly limit: number;
  /** Blend proximity into the score when there is a geo restriction. */
  readonly combineLocation?: boolean;
  /** Aborted when the caller has gone or its deadline passed: the query's embedding is then not computed. */
  readonly signal?: AbortSignal | undefined;
}

/** A collection's own vector (given by clients) to search instead of a model's chunk vectors. */
export interface ClientVectorSpace {
  readonly collection: string;
  readonly name: string;
  readonly settings: VectorSettings;
}

/** Where a space's vectors are read from when the index's float32 copies are not in memory. */
export interface SpaceSource {
  /** HNSW candidates read per result (quantised indexes order candidates less exactly). */
  readonly factor: number;
  /** The collection's own vector searched; absent: a model's chunk vectors. */
  readonly client?: ClientVectorSpace;
}

/** Exact similarity of the query to a stored (unit-length) vector; euclidean maps distance d to 1 / (1 + d). */
export function similarity(method: SimilarityMethod, query: Float32Array, stored: Float32Array): number {
  if (method === 'euclidean') return 1 / (1 + Math.sqrt(squaredDistance(query, stored)));
  return dotProduct(query, stored);
}

/** Parses a client's vector: a JSON array of finite numbers (or that array as a string) of the model's size. */
export function parseVector(raw: unknown, dims: number, model: string): Float32Array {
  const value = jsonInput(raw, 'INVALID_VECTOR_FORMAT', 'body.vector');
  const invalid = () =>
    createError('INVALID_VECTOR_FORMAT', { reason: 'expected a JSON array of numbers' }, { field: 'body.vector' });
  const finite = (x: unknown) => typeof x === 'number' && Number.isFinite(x);
  if (!Array.isArray(value)) throw invalid();
  if (value.length !== dims) {
    if (!value.every(finite)) throw invalid();
    throw createError(
      'INVALID_VECTOR_FORMAT',
      { reason: `expected ${dims} numbers for ${model}, got ${value.length}` },
      { field: 'body.vector' },
    );
  }
  const vector = new Float32Array(dims);
  for (let i = 0; i < dims; i += 1) {
    const x: unknown = value[i];
    if (!finite(x)) throw invalid();
    vector[i] = x as number;
    // 1e39 is a finite double but Infinity as a float32: refused, not scored NaN and silently dropped.
    if (!Number.isFinite(vector[i]!)) {
      throw createError(
        'INVALID_VECTOR_FORMAT',
        { reason: `body.vector[${i}] is beyond the float32 range (±3.4e38)` },
        { field: 'body.vector' },
      );
    }
  }
  if (vector.every((x) => x === 0)) {
    throw createError('INVALID_VECTOR_FORMAT', { reason: 'a zero vector has no direction' }, { field: 'body.vector' });
  }
  return vector;
}

/** The query vector: the given vector, or the query text embedded with the model. */
export async function queryVector(
  embedder: Embedder,
  q: Pick<VectorQuery, 'text' | 'vector' | 'model' | 'signal'>,
): Promise<{ vector: Float32Array; model: string; dims: number }> {
  const model = embedder.resolve(q.model);
  if (q.vector !== undefined && q.vector !== null && q.vector !== '') {
    return { vector: parseVector(q.vector, model.dimensions, model.name), model: model.name, dims: model.dimensions };
  }
  if (!q.text || q.text.trim() === '') throw createError('QUERY_REQUIRED', {}, { field: 'body.query' });
  const [embedding] = await embedder.embed(model.name, [q.text], undefined, q.signal);
  return { vector: embedding!.vector, model: model.name, dims: model.dimensions };
}
