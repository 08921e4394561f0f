import { createError } from '@godb/contract';

/** A sparse vector as stored: strictly increasing indices and one finite value each. */
export interface SparseVectorValue {
  readonly indices: readonly number[];
  readonly values: readonly number[];
}

const invalid = (field: string, detail: string) => createError('VALIDATION_FAILED', { detail }, { field });

/**
 * Checks what the schema cannot: indices strictly increasing (so neither unsorted nor repeated), as many values as
 * indices, and (for callers that bypass the schema) integers ≥ 0 and finite values. Throws a 400 naming the field.
 *
 * @example checkSparse({ indices: [3, 9], values: [0.5, 1] }, 'body.sparse_vectors.splade');
 */
export function checkSparse(v: SparseVectorValue, field: string): SparseVectorValue {
  if (v.indices.length !== v.values.length)
    throw invalid(
      `${field}.values`,
      `${field} has ${v.indices.length} indices and ${v.values.length} values: expected one value per index.`,
    );
  v.indices.forEach((index, i) => {
    if (!Number.isInteger(index) || index < 0)
      throw invalid(`${field}.indices[${i}]`, `${field}.indices[${i}] is ${index}: expected an integer ≥ 0.`);
    const before = i > 0 ? v.indices[i - 1]! : -1;
    if (index <= before)
      throw invalid(
        `${field}.indices[${i}]`,
        `${field}.indices[${i}] is ${index} after ${before}: expected strictly increasing indices (sorted, no repeats).`,
      );
  });
  v.values.forEach((value, i) => {
    if (!Number.isFinite(value))
      throw invalid(`${field}.values[${i}]`, `${field}.values[${i}] is ${value}: expected a finite number.`);
  });
  return v;
}

/** Every sparse vector a document gives, checked; undefined when it gives none. */
export function checkDocumentSparse(
  given: Readonly<Record<string, SparseVectorValue>> | undefined,
  field: string,
): Record<string, SparseVectorValue> | undefined {
  if (!given || Object.keys(given).length === 0) return undefined;
  const out: Record<string, SparseVectorValue> = {};
  for (const [name, v] of Object.entries(given)) {
    const { indices, values } = checkSparse(v, `${field}.${name}`);
    out[name] = { indices: [...indices], values: [...values] };
  }
  return out;
}

/** A document's sparse names must be the collection's: 400 naming the field and the declared names otherwise. */
export function refuseUndeclared(
  given: Readonly<Record<string, SparseVectorValue>>,
  declared: Readonly<Record<string, unknown>> | undefined,
  collection: string,
  field: string,
): void {
  const names = Object.keys(declared ?? {});
  for (const name of Object.keys(given))
    if (!names.includes(name))
      throw invalid(
        `${field}.${name}`,
        `${field}.${name}: collection ${collection} declares no sparse vector "${name}"; expected one of: ${names.join(', ') || '(none: declare sparse_vectors when creating the collection)'}.`,
      );
}
