import { createError, maxMultiVectors } from '@godb/contract';

/** A document's list of vectors for one multi-vector name, as given (`body.multi_vectors.<name>`). */
export interface GivenMultiVector {
  readonly name: string;
  readonly vectors: readonly Float32Array[];
  /** Where it came from in the request, for errors (`body.multi_vectors.colbert`). */
  readonly field: string;
}

/**
 * A document's `multi_vectors` as float32 lists, checked for what needs no collection: a list of one vector or
 * more (at most maxMultiVectors), each number finite in float32. Sizes and counts are the collection's to check
 * (multi-vector-writes.ts), at write time.
 */
export function givenMultiVectors(
  input: Readonly<Record<string, readonly (readonly number[])[]>> | undefined,
  field: (name: string) => string,
): GivenMultiVector[] {
  return Object.entries(input ?? {}).map(([name, list]) => {
    const at = field(`multi_vectors.${name}`);
    if (!Array.isArray(list) || list.length === 0 || list.length > maxMultiVectors)
      throw createError(
        'INVALID_VECTOR_FORMAT',
        {
          reason: `${at} must be a list of 1 to ${maxMultiVectors} vectors (it has ${Array.isArray(list) ? list.length : 0})`,
        },
        { field: at },
      );
    const vectors = list.map((values, i) => {
      const vector = Float32Array.from(values);
      const bad = vector.findIndex((x) => !Number.isFinite(x));
      if (bad >= 0)
        throw createError(
          'INVALID_VECTOR_FORMAT',
          { reason: `${at}[${i}][${bad}] is not a finite number within the float32 range (±3.4e38)` },
          { field: `${at}[${i}]` },
        );
      return vector;
    });
    return { name, vectors, field: at };
  });
}

/** A stored version's multi-vector rows (by seq, so in the order given) as the lists a new version carries over. */
export function carriedMultiVectors(
  rows: readonly { readonly seq: number; readonly name: string; readonly vector: Buffer }[],
  copy: (blob: Buffer) => Float32Array,
): GivenMultiVector[] {
  const byName = new Map<string, Float32Array[]>();
  for (const row of [...rows].sort((a, b) => a.seq - b.seq)) {
    const list = byName.get(row.name);
    if (list) list.push(copy(row.vector));
    else byName.set(row.name, [copy(row.vector)]);
  }
  return [...byName].map(([name, vectors]) => ({ name, vectors, field: `body.multi_vectors.${name}` }));
}
