import { createError, type Collection } from '@godb/contract';
import { clientSpaceKey } from '../collections/vector-space.js';
import type { GivenMultiVector } from './given-multi-vectors.js';

/** One vector of a multi-vector, as stored: a row of `document_vectors` under the name, a key in its HNSW index. */
export interface MultiVectorRow {
  readonly name: string;
  readonly space: string;
  readonly vector: Float32Array;
}

const refuse = (field: string, reason: string) => createError('INVALID_VECTOR_FORMAT', { reason }, { field });

/**
 * Checks a document's multi-vectors against its collection inside the write transaction (so a bad list writes
 * nothing of the batch): each name must be declared `multi`, the list hold at most its max_vectors, each vector its
 * dimensions, and none be a zero vector under cosine. Returns the rows to store, in the order given.
 */
export function multiVectorRows(
  collection: Collection | undefined,
  table: string,
  given: readonly GivenMultiVector[],
): MultiVectorRow[] {
  const rows: MultiVectorRow[] = [];
  for (const g of given) {
    const settings = collection?.vectors[g.name];
    if (!settings?.multi) {
      const multi = Object.entries(collection?.vectors ?? {})
        .filter(([, v]) => v.multi)
        .map(([n]) => n);
      throw createError(
        'VALIDATION_FAILED',
        {
          detail: `${g.field}: collection ${table} ${settings ? `declares "${g.name}" as a single vector (give it in vectors.${g.name})` : `has no vector named "${g.name}"`}; expected one of its multi-vectors: ${multi.join(', ') || '(none: declare one with multi: {max_vectors})'}`,
        },
        { field: g.field },
      );
    }
    const { max_vectors } = settings.multi;
    if (g.vectors.length > max_vectors)
      throw refuse(
        g.field,
        `${g.field} has ${g.vectors.length} vectors but multi-vector "${g.name}" of collection ${table} holds at most ${max_vectors}`,
      );
    if (g.vectors.length === 0) throw refuse(g.field, `${g.field} is empty: give 1 to ${max_vectors} vectors`);
    g.vectors.forEach((vector, i) => {
      if (vector.length !== settings.dimensions)
        throw refuse(
          `${g.field}[${i}]`,
          `${g.field}[${i}] has ${vector.length} numbers but multi-vector "${g.name}" of collection ${table} has ${settings.dimensions} dimensions`,
        );
      if (settings.distance === 'cosine' && vector.every((x) => x === 0))
        throw refuse(`${g.field}[${i}]`, `${g.field}[${i}] is a zero vector, which has no direction for cosine`);
      rows.push({ name: g.name, space: clientSpaceKey(table, g.name), vector });
    });
  }
  return rows;
}
