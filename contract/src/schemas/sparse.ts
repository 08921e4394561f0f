import { Type, type Static } from '@sinclair/typebox';
import { inputLimits } from './common.js';

/** The largest finite float32 (as dense vectors: a value beyond it would not survive a float32 client). */
const float32Max = 3.4028234663852886e38;

/**
 * A sparse vector (issue #42): the indices of its non-zero dimensions, strictly increasing, and their values, one
 * per index. The engine refuses unsorted or repeated indices and lists of different lengths, naming the field.
 */
export const SparseVector = (description: string) =>
  Type.Object(
    {
      indices: Type.Array(Type.Integer({ minimum: 0, maximum: inputLimits.sparseIndex }), {
        maxItems: inputLimits.sparseNonZeros,
        description: `Dimensions with a non-zero value: integers from 0 to ${inputLimits.sparseIndex}, strictly increasing, at most ${inputLimits.sparseNonZeros}.`,
      }),
      values: Type.Array(Type.Number({ minimum: -float32Max, maximum: float32Max }), {
        maxItems: inputLimits.sparseNonZeros,
        description: 'The value of each index, in the same order (as many values as indices).',
      }),
    },
    { additionalProperties: false, description },
  );
export type SparseVector = Static<ReturnType<typeof SparseVector>>;

/** A collection's declared sparse vectors: {<name>: {}} (no settings yet: scored by dot product). */
export const SparseVectorDeclarations = (pattern: string) =>
  Type.Record(Type.String({ pattern, maxLength: 64 }), Type.Object({}, { additionalProperties: false }), {
    maxProperties: 16,
    additionalProperties: false,
    description:
      'Named sparse vectors: {<name>: {}}, e.g. {"splade": {}}. Documents give `sparse_vectors: {<name>: {indices, values}}`; a `sparse` stage of POST /search/query ranks them by dot product, exactly. Fixed at create.',
  });

/** Sparse vectors given with a document, by declared name. */
export const DocumentSparseVectors = (pattern: string) =>
  Type.Record(Type.String({ pattern, maxLength: 64 }), SparseVector('A sparse vector of the collection, by name.'), {
    maxProperties: 16,
    additionalProperties: false,
    description:
      'Sparse vectors by name, e.g. {"splade": {"indices": [17, 302], "values": [0.8, 0.21]}}: each name one the collection declares in `sparse_vectors`.',
  });
