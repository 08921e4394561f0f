import { createError, maxSearchLimit } from '@godb/contract';
import type { Collections } from '../collections/collections.js';
import type { ClientVectorSpace } from '../search/vector-query.js';
import { resolveTarget } from '../search/pipeline/vector-targets.js';

/** A multi-vector query checked: the space it searches and its vectors as compared (unit length for cosine). */
export interface MultiVectorQuery {
  readonly space: ClientVectorSpace;
  readonly vectors: readonly Float32Array[];
}

/** Documents a multi_vector stage gathers per query vector by default: at least this, at least its limit. */
export const defaultCandidatesPerVector = 100;

const invalid = (field: string, detail: string) => createError('VALIDATION_FAILED', { detail }, { field });

/**
 * The multi-vector a stage or rescore names (`path.vector_name`) and its query vectors (`path.multi_vector`):
 * the name must be one of the collection's multi-vectors, each query vector of its dimensions (and not zero under
 * cosine). Refused with a 400 naming the field and what is expected.
 */
export function planMultiVector(
  collections: Collections,
  tenantId: string,
  table: string | undefined,
  input: {
    readonly vector_name?: string | undefined;
    readonly multi_vector?: readonly (readonly number[])[] | undefined;
  },
  path: string,
): MultiVectorQuery {
  if (input.vector_name === undefined)
    throw invalid(`${path}.vector_name`, `${path}.vector_name is required: one of the collection’s multi-vectors.`);
  const target = resolveTarget(collections, tenantId, table, { vector_name: input.vector_name }, path);
  if (target.kind !== 'own' || !target.space.settings.multi) {
    const collection = table === undefined ? undefined : collections.get(tenantId, table);
    const multi = Object.entries(collection?.vectors ?? {})
      .filter(([, v]) => v.multi)
      .map(([n]) => n);
    throw invalid(
      `${path}.vector_name`,
      `${path}.vector_name: vector "${input.vector_name}" is not a multi-vector; expected one of: ${multi.join(', ') || '(none: the collection declares no multi-vector)'}.`,
    );
  }
  const { space } = target;
  const given = input.multi_vector;
  if (given === undefined || given.length === 0)
    throw invalid(
      `${path}.multi_vector`,
      `${path}.multi_vector is required: a list of query vectors of ${space.settings.dimensions} numbers each.`,
    );
  const vectors = given.map((values, i) => {
    const field = `${path}.multi_vector[${i}]`;
    const vector = Float32Array.from(values);
    if (vector.length !== space.settings.dimensions)
      throw createError(
        'INVALID_VECTOR_FORMAT',
        {
          reason: `${field} has ${vector.length} numbers but multi-vector "${space.name}" of collection ${space.collection} has ${space.settings.dimensions} dimensions`,
        },
        { field },
      );
    if (vector.some((x) => !Number.isFinite(x)))
      throw createError('INVALID_VECTOR_FORMAT', { reason: `${field} holds a number beyond float32` }, { field });
    if (space.settings.distance !== 'cosine') return vector;
    const norm = Math.hypot(...vector);
    if (norm === 0)
      throw createError(
        'INVALID_VECTOR_FORMAT',
        { reason: `${field} is a zero vector, which has no direction for cosine` },
        { field },
      );
    return vector.map((x) => x / norm);
  });
  return { space, vectors };
}

/** Documents gathered per query vector: the stage's `candidates`, or the larger of the default and its limit. */
export const candidatesPerVector = (given: number | undefined, limit: number): number =>
  Math.min(maxSearchLimit, given ?? Math.max(defaultCandidatesPerVector, limit));
